// Package execute holds what turns a plan into results, one package per
// job (docs/architecture.md maps them to the stages):
//
//   - running trials: runner (plans, launches, benchmarks, stores,
//     re-plans until the study is decided), engine and engine/llamacpp
//     (starting and stopping engines, locally or in containers), slurm
//     (the cluster's commands), host (the machine's facts and GPUs),
//     load (the streaming benchmark client and its calibration), dataset
//     (prompts), gguf (GGUF model files), bench (one load profile against
//     a running endpoint, as `servelab bench` drives it);
//   - results: record (the record format and its sidecar of per-request
//     samples), store (the content-addressed results folder), importer
//     (other tools' output read into metrics), ingest (an imported file
//     stored as a trial's record), startup (an engine's start-up log
//     read into the settings it says it runs with);
//   - decisions: decide (statistics and the decision rule; no I/O).
//
// render and site read record, store, startup and decide, the data; never the
// parts that run processes. Nothing here imports render or site.
package execute
