# servelab: build, test, benchmark.
GO      ?= go
BIN     ?= bin
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test vet bench bench-decide bench-slurm fuzz clean import-seeds site serve site-deps chromium slurm-deps \
	llamacpp-deps llamacpp-src llamacpp-tools llamacpp-cpu llamacpp-cuda llamacpp-pack llamacpp-flags

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/servelab ./cmd/servelab
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/servelab-sim ./cmd/servelab-sim
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/servelab-gguf ./cmd/servelab-gguf

# The packages with concurrency (client, drivers, engines, store, runner,
# simulator) run under the race detector, beside the rest.
RACE_PKGS := ./execute/load/ ./execute/dataset/ ./execute/engine/... ./execute/store/ ./execute/event/ ./execute/runner/ ./execute/sim/
RACE_RE   := servelab.dev/execute/(load|dataset|engine|engine/llamacpp|engine/llamacpp/gen|store|event|runner|sim)$$

# The test command the README and .ci/run use. It installs what the site
# and browser tests need (npm echarts from the lockfile; Debian's
# chromium when missing and installable) and then requires both, so the
# site and browser tests fail rather than skip where they can run.
test: vet site-deps chromium slurm-deps llamacpp-cpu
	SERVELAB_REQUIRE_SITE=1 \
	SERVELAB_REQUIRE_BROWSER=$$(command -v chromium >/dev/null 2>&1 && echo 1) \
	SERVELAB_REQUIRE_SLURM=$$(command -v slurmctld >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && echo 1) \
	SERVELAB_REQUIRE_LLAMACPP=1 \
	SERVELAB_LLAMA_SERVER=$$(cat $(LLAMACPP_OUT)/cpu-bin)/llama-server \
	SERVELAB_LLAMACPP_VOCAB=$(CURDIR)/$(LLAMACPP_SRC)/models/ggml-vocab-qwen2.gguf \
	sh -c '$(GO) test -race $(RACE_PKGS) & race=$$!; \
		$(GO) test $$($(GO) list ./... | grep -v -E "$(RACE_RE)"); rest=$$?; \
		wait $$race && exit $$rest'
	@# Timing claims that other packages' tests running beside them on two
	@# cores would spoil run alone, afterwards.
	SERVELAB_TIMING_ALONE=1 $(GO) test -p 1 -count=1 -v \
		-run '^(TestTraceReplayKeepsArrivals|TestConstantRateHoldsSchedule)$$' \
		./execute/dataset/ ./execute/load/

# The docs site from the committed studies and results (no GPU needed).
# SITE_URL (the address it is published at) adds an absolute sitemap.xml.
SITE_URL ?=
site: build site-deps
	$(BIN)/servelab site -o public $(if $(SITE_URL),--base-url $(SITE_URL))

# Preview the site on loopback.
serve: build site-deps
	$(BIN)/servelab site -o public --serve 127.0.0.1:8080

# ECharts, pinned by site/package-lock.json.
site-deps: site/node_modules/.package-lock.json

site/node_modules/.package-lock.json: site/package.json site/package-lock.json
	cd site && npm ci --no-audit --no-fund

# Debian's chromium for the browser test, installed when missing and when
# this machine allows it (root and apt-get); otherwise the test skips
# with a message saying why.
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing chromium (Debian) for the browser test"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk >/dev/null; \
		else \
			echo "chromium is missing and cannot be installed here (needs root and apt-get): the browser test will skip"; \
		fi; \
	fi

# Debian's Slurm and munge for the Slurm testscripts, which start a
# one-node cluster of their own (execute/slurm/testdata/cluster.sh) and
# stop it by pid. Installed when missing and when this machine allows it
# (root and apt-get); otherwise the Slurm tests skip, and this says why.
slurm-deps:
	@if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing slurm-wlm and munge (Debian) for the Slurm testscripts"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; \
		fi; \
	fi
	@if ! command -v slurmctld >/dev/null 2>&1; then \
		echo "Slurm is missing and cannot be installed here (needs root and apt-get): the Slurm testscripts will skip"; \
	elif [ "$$(id -u)" != 0 ]; then \
		echo "the test cluster's daemons run as root and this is not root: the Slurm testscripts will skip"; \
	else \
		echo "Slurm $$(slurmctld -V | cut -d' ' -f2) installed: the Slurm testscripts start a one-node cluster and must pass"; \
	fi

# llama.cpp, pinned by execute/engine/llamacpp/package-lock.json: npm's
# node-llama-cpp ships the source as a git bundle (only the bundle is
# used: --ignore-scripts, no optional prebuilt binaries). The source is
# extracted into the ignored .llamacpp/; builds go to a cache outside the
# clone keyed by commit and backend (build.sh says when one was cold).
LLAMACPP_DIR    := execute/engine/llamacpp
LLAMACPP_OUT    ?= .llamacpp
LLAMACPP_SRC    ?= $(LLAMACPP_OUT)/src
LLAMACPP_BUNDLE := $(LLAMACPP_DIR)/node_modules/node-llama-cpp/llama/gitRelease.bundle

llamacpp-deps: $(LLAMACPP_DIR)/node_modules/.package-lock.json

$(LLAMACPP_DIR)/node_modules/.package-lock.json: $(LLAMACPP_DIR)/package.json $(LLAMACPP_DIR)/package-lock.json
	cd $(LLAMACPP_DIR) && npm ci --ignore-scripts --omit=optional --no-audit --no-fund

llamacpp-src: llamacpp-deps
	$(LLAMACPP_DIR)/extract.sh $(LLAMACPP_BUNDLE) $(LLAMACPP_SRC)

# cmake and ninja from Debian when missing (root and apt-get needed).
llamacpp-tools:
	@if ! command -v cmake >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing cmake and ninja-build (Debian) to build llama.cpp"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cmake ninja-build g++ >/dev/null; \
		else \
			echo "cmake or ninja is missing and cannot be installed here (needs root and apt-get)"; exit 1; \
		fi; \
	fi

# The CPU llama-server the end-to-end test runs (a cold build takes minutes).
llamacpp-cpu: llamacpp-src llamacpp-tools
	$(LLAMACPP_DIR)/build.sh $(LLAMACPP_SRC) cpu > $(LLAMACPP_OUT)/cpu-bin.tmp && mv $(LLAMACPP_OUT)/cpu-bin.tmp $(LLAMACPP_OUT)/cpu-bin

# On a GPU host with the CUDA toolkit.
llamacpp-cuda: llamacpp-src llamacpp-tools
	$(LLAMACPP_DIR)/build.sh $(LLAMACPP_SRC) cuda > $(LLAMACPP_OUT)/cuda-bin.tmp && mv $(LLAMACPP_OUT)/cuda-bin.tmp $(LLAMACPP_OUT)/cuda-bin

# The source as a small tarball, for hosts without internet.
llamacpp-pack: llamacpp-src
	$(LLAMACPP_DIR)/pack.sh $(LLAMACPP_SRC) $(LLAMACPP_OUT)/llama.cpp-src.tar.xz

# schema/flags/llamacpp.json from the pinned source's common/arg.cpp.
llamacpp-flags: llamacpp-src
	$(GO) run ./$(LLAMACPP_DIR)/gen $(LLAMACPP_SRC) schema/flags/llamacpp.json

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# GPU time per decision: a synthetic study of clear and close calls
# decided with a fixed 6 runs a side and with adaptive repeats {2, 6};
# prints both GPU times and the runs each step took.
bench-decide:
	$(GO) test -count=1 -run '^TestAdaptiveRepeats$$' -v ./execute/decide | grep -E 'GPU time|^(ok|FAIL)'

# Go benchmarks on one core (GOMAXPROCS=1). BenchmarkClient in
# execute/load prints the client's CPU µs per streamed chunk and the
# highest rate with schedule lag p99 < 1 ms, before and after the
# sleeping pacer, against a servelab-sim process on another core.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 ./...

# Launcher overhead per trial, locally and through a one-node Slurm
# cluster (started and stopped by the script), in one run.
bench-slurm: build slurm-deps
	execute/slurm/testdata/overhead.sh $(BIN)

# Short fuzzing of every parser (flags, study files, records, pid and
# marker files, streams, importers): PACKAGE:TARGET pairs, each run for
# FUZZTIME; the seed corpora live in each package's testdata/fuzz.
FUZZTIME ?= 20s
FUZZ_TARGETS := \
	./schema:FuzzLoad ./schema:FuzzParseFlagTable ./schema:FuzzCompareVersions ./schema/flagscan:FuzzScan ./schema/plan:FuzzShell \
	./cmd/servelab:FuzzBenchFlags ./cmd/servelab:FuzzRunFlags ./cmd/servelab:FuzzGPUs ./cmd/servelab:FuzzOutputFlags \
	./cmd/servelab-sim:FuzzParseArgs \
	./execute/record:FuzzDecode ./execute/record:FuzzDecodeSamples ./execute/store:FuzzLoadFile \
	./execute/engine:FuzzParseIdentity ./render/outdir:FuzzMarker ./execute/load:FuzzStream ./execute/load:FuzzParseChunk ./execute/load:FuzzBody ./execute/load:FuzzResponse ./execute/load:FuzzParseMetrics \
	./execute/importer:FuzzVLLMText ./execute/importer:FuzzVLLMJSON ./execute/importer:FuzzVLLMSweep ./execute/importer:FuzzGuideLLM ./execute/importer:FuzzSGLang \
	./execute/importer:FuzzSGLangText ./execute/importer:FuzzAIPerf ./execute/importer:FuzzInferencePerf ./execute/importer:FuzzDetect \
	./render/markdown:FuzzEscapeReadsBack \
	./execute/slurm:FuzzParseSqueue ./execute/slurm:FuzzParseSubmit ./execute/slurm:FuzzParseSacct \
	./execute/dataset:FuzzParseTrace ./execute/dataset:FuzzParseConversations \
	./execute/startup:FuzzLlamaCpp ./execute/startup:FuzzVLLM ./execute/startup:FuzzSGLang
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		echo "fuzz $$t ($(FUZZTIME))"; \
		$(GO) test $${t%%:*} -run '^$$' -fuzz "^$${t##*:}\$$" -fuzztime $(FUZZTIME) -parallel 2 || exit 1; \
	done

# Re-import the seed reports' benchmark blocks (results/imports) into
# results/; records already there with the same figures are kept as they are.
import-seeds: build
	SERVELAB=$(BIN)/servelab results/imports/import-all.sh $(IMPORT_FLAGS)

clean:
	rm -rf $(BIN) public site/node_modules $(LLAMACPP_DIR)/node_modules
