package i18n

// Term is one concept the reports name, in the words the user's seed
// reports use for it (ZH from seed 001, RU from seed 004). RU is a stem
// shared by the word's inflections. Not lists words a page must not use
// instead (calques, earlier variants). Required terms appear on every
// decided report page.
type Term struct {
	EN, ZH, RU string
	Not        map[string][]string
	Required   bool
}

// Terms is the glossary the catalogs and the tests use.
var Terms = []Term{
	{EN: "benchmark case", ZH: "基准测试用例", RU: "сценари", Not: map[string][]string{"zh": {"基准测试场景"}}, Required: true},
	{EN: "serving command", ZH: "推理服务命令", RU: "обслуживани", Required: true},
	{EN: "baseline", ZH: "基准配置", RU: "базов", Required: true},
	{EN: "optimized", ZH: "优化后", RU: "оптимиз", Required: true},
	{EN: "summary:", ZH: "汇总", RU: "итог", Not: map[string][]string{"zh": {"小结"}}, Required: true},
	{EN: "summary of optimization options", ZH: "优化选项汇总", RU: "сводка методов оптимизации", Required: true},
	{EN: "other benchmark cases", ZH: "其他基准测试用例", RU: "другие сценарии бенчмарка", Required: true},
	{EN: "confidence interval", ZH: "置信区间", RU: "доверительн", Not: map[string][]string{"ru": {"confidence interval", "интервал уверенности"}}},
	{EN: "warm-up", ZH: "预热", RU: "разогрев", Required: true},
	{EN: "experimental setup", ZH: "实验环境", RU: "условия эксперимента", Required: true},
	{EN: "conclusion", ZH: "结论", RU: "вывод", Required: true},
	{EN: "mean latency", ZH: "平均延迟", RU: "средн", Required: true},
	{EN: "%d runs", ZH: "运行", RU: "прогон", Required: true},
	{EN: "engine", ZH: "引擎", RU: "движ", Required: true},
	{EN: "max-num-seqs", ZH: "最大序列数", RU: "максимальное число последовательностей"},
}
