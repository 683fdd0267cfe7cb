# servelab: build, test, benchmark.
GO      ?= go
BIN     ?= bin
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test vet bench fuzz clean import-seeds

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/servelab ./cmd/servelab

# The test command the README and .ci/run use.
test: vet
	$(GO) test ./...

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Short fuzzing of every parser; the seed corpora live in testdata/fuzz.
FUZZTIME ?= 20s
fuzz:
	$(GO) test ./schema -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -parallel 2
	$(GO) test ./schema/plan -run '^$$' -fuzz '^FuzzShell$$' -fuzztime $(FUZZTIME) -parallel 2
	$(GO) test ./execute/record -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -parallel 2
	$(GO) test ./execute/record -run '^$$' -fuzz '^FuzzDecodeSamples$$' -fuzztime $(FUZZTIME) -parallel 2
	for f in FuzzVLLMText FuzzVLLMJSON FuzzGuideLLM FuzzSGLang; do \
		$(GO) test ./execute/importer -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -parallel 2 || exit 1; \
	done

# Re-import the seed reports' benchmark blocks (results/imports) into
# results/; records already there with the same figures are kept as they are.
import-seeds: build
	SERVELAB=$(BIN)/servelab results/imports/import-all.sh

clean:
	rm -rf $(BIN)
