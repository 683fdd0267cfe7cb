// Package diff compares two states of a repository of studies (the base
// of a pull request and its head): which studies, trials and records
// changed, what that did to each step's decision, and above all whether
// the recommended serve command changed.
package diff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/render/text"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Side is one state: its studies, their analyses, and the run files of
// each trial.
type Side struct {
	Studies  map[string]*schema.Study
	Analyses map[string]*decide.Analysis
	Runs     decide.Runs
	Files    map[string][]string // trial key → run file names
}

// Load reads a state from its studies and results folders.
func Load(studies, results string) (*Side, error) {
	sd := &Side{Studies: map[string]*schema.Study{}, Analyses: map[string]*decide.Analysis{}, Runs: decide.Runs{}, Files: map[string][]string{}}
	l, err := schema.NewLoader()
	if err != nil {
		return nil, err
	}
	ss, errs := l.LoadPaths([]string{studies})
	if len(errs) > 0 {
		return nil, errs
	}
	all, err := store.Open(results).All()
	if err != nil {
		return nil, err
	}
	samples := decide.Samples{}
	st := store.Open(results)
	for key, rs := range all {
		for _, r := range rs {
			sd.Files[key] = append(sd.Files[key], baseName(r.Path))
			if r.Record.Status != "ok" {
				continue
			}
			// Like store.OKWithSamples, in the same pass as the files: the
			// review decides exactly as analyze and the reports do.
			sd.Runs[key] = append(sd.Runs[key], r.Record)
			if r.Record.Samples != "" {
				ss, err := st.Samples(r)
				if err != nil {
					return nil, err
				}
				samples[r.Record] = ss
			}
		}
		sort.Strings(sd.Files[key])
	}
	for _, s := range ss {
		a, err := decide.Analyze(s, decide.Records{Runs: sd.Runs, Samples: samples}, decide.Auto)
		if err != nil {
			return nil, err
		}
		sd.Studies[s.ID], sd.Analyses[s.ID] = s, a
	}
	return sd, nil
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Report is the whole comparison.
type Report struct {
	Studies []Study `json:"studies"`
}

// Study is one study's changes.
type Study struct {
	ID      string   `json:"id"`
	Change  string   `json:"change"` // added, removed, changed, unchanged
	Fields  []Field  `json:"fields,omitempty"`
	Added   []string `json:"trialsAdded,omitempty"`
	Removed []string `json:"trialsRemoved,omitempty"`
	// Unplanned are trials the head no longer plans whose records it
	// still holds: nothing was lost, so they are not listed as removed.
	Unplanned  []string   `json:"trialsUnplanned,omitempty"`
	Records    []Record   `json:"records,omitempty"`
	Decisions  []Decision `json:"decisions,omitempty"`
	Final      *Final     `json:"final,omitempty"`
	Validation []Row      `json:"validation,omitempty"`
	Missing    []string   `json:"missing,omitempty"`
	Metric     string     `json:"metric"`
	// SLO is the head's answer to the study's SLO, and SLOLine says it
	// first when no configuration meets it (text.SLOLine).
	SLO     *decide.SLOAnswer `json:"slo,omitempty"`
	SLOLine string            `json:"sloLine,omitempty"`
}

// Field is a changed setting, named by its path in the study.
type Field struct {
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
	// Words is a long text's change word by word, with a little
	// context ("… the [-old-]{+new+} words …"), so a one-word edit of a
	// note does not fill a screen in each language.
	Words string `json:"words,omitempty"`
}

// Record is a trial whose runs were added or replaced.
type Record struct {
	Trial   string   `json:"trial"`
	Key     string   `json:"key"`
	Change  string   `json:"change"` // added, replaced, removed
	Old     *float64 `json:"old,omitempty"`
	New     *float64 `json:"new,omitempty"`
	Verdict string   `json:"verdict,omitempty"`
}

// Decision is a step whose adopted variant changed.
type Decision struct {
	Step string `json:"step"`
	Old  string `json:"old"`
	New  string `json:"new"`
	// Outcome and Reason are the decision package's, on the new side.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// Final is the recommendation on both sides.
type Final struct {
	Changed bool   `json:"changed"`
	Old     string `json:"old"`
	New     string `json:"new"`
	// OldWhy and NewWhy say why a side has no recommendation, or why
	// its recommendation is not measured.
	OldWhy *Why `json:"oldWhy,omitempty"`
	NewWhy *Why `json:"newWhy,omitempty"`
}

// Why is what keeps a side from a measured recommendation.
type Why struct {
	Missing    int  `json:"missing,omitempty"`    // planned trials without a record
	Pending    int  `json:"pending,omitempty"`    // trials waiting on those decisions
	Unmeasured bool `json:"unmeasured,omitempty"` // every run of the final failed
}

// Row is a validation profile before and after.
type Row struct {
	Profile  string   `json:"profile"`
	OldRatio *float64 `json:"oldRatio,omitempty"`
	NewRatio *float64 `json:"newRatio,omitempty"`
	OldFinal *float64 `json:"oldFinal,omitempty"`
	NewFinal *float64 `json:"newFinal,omitempty"`
}

// Compare compares base with head.
func Compare(base, head *Side) Report {
	var r Report
	for _, id := range ids(base, head) {
		b, h := base.Studies[id], head.Studies[id]
		switch {
		case b == nil:
			st := Study{ID: id, Change: "added", Metric: h.Objective.Metric, Missing: missing(head.Analyses[id])}
			st.SLO, st.SLOLine = sloOf(head.Analyses[id])
			r.Studies = append(r.Studies, st)
		case h == nil:
			r.Studies = append(r.Studies, Study{ID: id, Change: "removed", Metric: b.Objective.Metric})
		default:
			r.Studies = append(r.Studies, compareStudy(id, base, head))
		}
	}
	return r
}

func ids(a, b *Side) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range []*Side{a, b} {
		for id := range s.Studies {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}

func compareStudy(id string, base, head *Side) Study {
	b, h := base.Analyses[id], head.Analyses[id]
	out := Study{ID: id, Metric: head.Studies[id].Objective.Metric}
	out.Fields = fields(base.Studies[id], head.Studies[id])
	out.Added, out.Removed, out.Unplanned = trials(b.Plan, h.Plan, h.Runs)
	out.Records = records(b, h, base, head)
	out.Decisions = decisions(b, h)
	out.Final = final(b, h)
	out.Validation = validation(b, h)
	out.Missing = missing(h)
	out.SLO, out.SLOLine = sloOf(h)
	out.Change = "unchanged"
	if len(out.Fields)+len(out.Added)+len(out.Removed)+len(out.Records)+len(out.Decisions) > 0 || out.Final.Changed {
		out.Change = "changed"
	}
	return out
}

// sloOf is a's SLO answer, and the line that says it first when no
// configuration meets the SLO.
func sloOf(a *decide.Analysis) (*decide.SLOAnswer, string) {
	if a == nil || a.SLO == nil || a.SLO.Met {
		return nil, ""
	}
	return a.SLO, text.SLOLine(a)
}

// fields lists the study settings that differ. The comparison is of the
// decoded study, so reordering fields in the file changes nothing; list
// elements are named by their id or name (steps, variants).
func fields(a, b *schema.Study) []Field {
	fa, fb := flatten(a), flatten(b)
	var out []Field
	for _, k := range unionKeys(fa, fb) {
		if fa[k] != fb[k] {
			out = append(out, Field{Path: k, Old: fa[k], New: fb[k], Words: wordDiff(fa[k], fb[k])})
		}
	}
	return out
}

func flatten(s *schema.Study) map[string]string {
	var v any
	b, _ := json.Marshal(s)
	json.Unmarshal(b, &v)
	out := map[string]string{}
	walk("", v, out)
	return out
}

func walk(path string, v any, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			walk(join(path, k), x, out)
		}
	case []any:
		for i, x := range v {
			walk(fmt.Sprintf("%s[%s]", path, label(x, i)), x, out)
		}
	default:
		b, _ := json.Marshal(v)
		out[path] = string(b)
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func label(x any, i int) string {
	if m, ok := x.(map[string]any); ok {
		for _, k := range []string{"id", "name"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return fmt.Sprint(i)
}

func unionKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func trialName(t *plan.Trial) string {
	return fmt.Sprintf("%s/%s/%s/%d", t.Step, t.Variant, t.Profile, t.Repeat)
}

func keyed(p *plan.Plan) map[string]*plan.Trial {
	out := map[string]*plan.Trial{}
	for _, t := range p.Trials {
		if t.Key != "" {
			out[t.Key] = t
		}
	}
	return out
}

// Only is the report of study id alone; an error lists the IDs it has.
func (r Report) Only(id string) (Report, error) {
	var ids []string
	for _, s := range r.Studies {
		if s.ID == id {
			return Report{Studies: []Study{s}}, nil
		}
		ids = append(ids, s.ID)
	}
	return r, fmt.Errorf("--study %s: no such study on either side (studies: %s)", id, strings.Join(ids, ", "))
}

// trials are the keyed trials only one side plans. Those only a plans
// are removed, or unplanned where held (the head's runs) still has
// records of them: nothing was lost.
func trials(a, b *plan.Plan, held decide.Runs) (added, removed, unplanned []string) {
	ka, kb := keyed(a), keyed(b)
	for k, t := range kb {
		if ka[k] == nil {
			added = append(added, trialName(t)+" "+k[:plan.KeyPrefix])
		}
	}
	for k, t := range ka {
		switch {
		case kb[k] != nil:
		case len(held[k]) > 0:
			unplanned = append(unplanned, trialName(t)+" "+k[:plan.KeyPrefix])
		default:
			removed = append(removed, trialName(t)+" "+k[:plan.KeyPrefix])
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(unplanned)
	return added, removed, unplanned
}

// Failures are the problems failOn names (a comma-separated list of
// missing, regression), each a line; an error names an unknown one.
func (r Report) Failures(failOn string) ([]string, error) {
	var bad []string
	for _, what := range strings.Split(failOn, ",") {
		switch strings.TrimSpace(what) {
		case "":
		case "missing":
			bad = append(bad, r.Missing()...)
		case "regression":
			bad = append(bad, r.Regressions()...)
		default:
			return nil, fmt.Errorf("%q: want missing, regression", what)
		}
	}
	return bad, nil
}
