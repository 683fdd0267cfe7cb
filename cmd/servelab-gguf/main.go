// Command servelab-gguf writes a random-weight Qwen3 model as a GGUF file
// for llama.cpp, with the real Qwen tokenizer copied from a vocabulary
// GGUF (llama.cpp's models/ggml-vocab-qwen2.gguf). The weights are
// random, so its outputs are meaningless; the time a forward pass takes
// is the real model's.
//
//	servelab-gguf -vocab ggml-vocab-qwen2.gguf -shape 8b -o qwen3-8b-random-f16.gguf
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"servelab.dev/execute/gguf"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("servelab-gguf", flag.ContinueOnError)
	vocab := fs.String("vocab", "", "GGUF file whose tokenizer.* metadata is copied (required)")
	shape := fs.String("shape", "tiny", "model shape: "+strings.Join(gguf.ShapeNames(), ", "))
	out := fs.String("o", "", "output file (required); written through a temporary file")
	typ := fs.String("type", "f16", "matrix type: f16 or bf16")
	seed := fs.Uint64("seed", 1, "random seed")
	std := fs.Float64("std", 0.02, "standard deviation of the matrices' values")
	layers := fs.Int("layers", 0, "override the shape's number of layers")
	guard := fs.Bool("utf8-guard", true, "keep the model from choosing tokens that are not valid UTF-8 on their own (llama-server fails such outputs)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, ok := gguf.Shapes[*shape]
	if *vocab == "" || *out == "" || !ok || fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "servelab-gguf: need -vocab FILE, -o FILE and -shape one of %s\n", strings.Join(gguf.ShapeNames(), ", "))
		return 2
	}
	if *guard {
		s.Tied = false // the guard needs its own output projection
	}
	if *layers > 0 {
		s.Layers = *layers
	}
	tt := map[string]gguf.TensorType{"f16": gguf.F16, "bf16": gguf.BF16}[*typ]
	if *typ != "f16" && *typ != "bf16" {
		fmt.Fprintf(os.Stderr, "servelab-gguf: -type %s: want f16 or bf16\n", *typ)
		return 2
	}
	v, err := gguf.ReadFile(*vocab)
	if err != nil {
		fmt.Fprintf(os.Stderr, "servelab-gguf: -vocab: %v\n", err)
		return 1
	}
	began := time.Now()
	r := gguf.Random{Shape: s, Name: "qwen3-" + *shape + "-random", Vocab: v, Type: tt, Seed: *seed, Std: *std, UTF8Guard: *guard}
	if err := gguf.WriteRandom(*out, r); err != nil {
		fmt.Fprintf(os.Stderr, "servelab-gguf: %v\n", err)
		return 1
	}
	st, _ := os.Stat(*out)
	tok, _ := v.Get("tokenizer.ggml.tokens")
	n := len(tok.Value.(gguf.Array).Values)
	fmt.Printf("wrote %s: qwen3 %s, %d layers, %.3g parameters, %d bytes in %.1fs (random weights: outputs are meaningless)\n",
		*out, *shape, s.Layers, float64(s.Params(n)), st.Size(), time.Since(began).Seconds())
	return 0
}
