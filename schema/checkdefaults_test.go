package schema

import (
	"reflect"
	"testing"
)

const defaultsStudy = `package s

import "servelab.dev/schema"

"tiny": schema.#Study & {
	title: {en: "Tiny", zh: "小", ru: "Малый"}
	model: {id: "models/tiny.gguf", params: 8.2e9, dtype: "fp16"}
	hardware: {gpu: "NVIDIA H200", count: 1}
	engines: llamacpp: {version: "0.4.0-80fb11ac73e6", knobs: maxBatchedTokens: 1024}
	benchmark: {client: name: "builtin", dataset: {name: "sharegpt", path: "sample.json"}, warmup: 2}
	profiles: c4: {kind: "concurrency", concurrency: 4, requests: 20}
	objective: {metric: "output_throughput", profile: "c4"}
	baseline: engine: "llamacpp"
	steps: [{
		id: "a", engine: "llamacpp", title: {en: "A", zh: "甲", ru: "А"}
		variants: [
			{name: "no-cache", knobs: prefixCaching: false},
			{name: "ctx-0", args: "ctx-size": 0},
			{name: "ub-512", args: {"ubatch-size": 512, "cont-batching": false}},
			{name: "b-2048", knobs: maxBatchedTokens: 2048},
		]
	}]
	validate: profiles: ["c4"]
}
`

// A variant writing a default the table knows is kept for the report;
// a negated switch, a default only noted, a switch written false and a
// flag the engine's args set otherwise are not.
func TestDefaultEquals(t *testing.T) {
	s, err := loadSource(t, loader(t), defaultsStudy)
	if err != nil {
		t.Fatal(err)
	}
	tables, _ := LoadFlagTables()
	src, _ := tables["llamacpp"].DefaultSource(FlagSpec{Default: "512", DefaultFrom: "common/common.h"})
	want := []DefaultEqual{{Step: "a", Variant: "ub-512", Flag: "--ubatch-size", Value: "512", Engine: "llamacpp", Version: "0.4.0-80fb11ac73e6", Source: src}}
	if !reflect.DeepEqual(s.DefaultEquals, want) || len(s.Warnings) != 1 {
		t.Errorf("DefaultEquals = %+v, warnings %v; want %+v and one warning", s.DefaultEquals, s.Warnings, want)
	}
}
