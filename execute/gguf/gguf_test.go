package gguf

import (
	"bytes"
	"crypto/sha256"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// testVocab is a byte-level BPE vocabulary in GPT-2's encoding: "Ġ" is
// a space, "Ã" alone is byte 0xC3 (a lead byte without its follower).
func testVocab() *File {
	toks := []any{"a", "b", "Ġc", "Ã", "Ã©", "<|endoftext|>"}
	types := []any{int32(1), int32(1), int32(1), int32(1), int32(1), int32(3)}
	return &File{KV: []KV{
		{"tokenizer.ggml.model", TypeString, "gpt2"},
		{"tokenizer.ggml.tokens", TypeArray, Array{Elem: TypeString, Values: toks}},
		{"tokenizer.ggml.token_type", TypeArray, Array{Elem: TypeInt32, Values: types}},
		{"tokenizer.ggml.eos_token_id", TypeUint32, uint32(5)},
	}}
}

var testShape = Shape{Layers: 2, Hidden: 64, FFN: 96, Heads: 2, KVHeads: 1, HeadDim: 32, Context: 256, RopeBase: 1e6, RMSEps: 1e-6}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	r := Random{Shape: testShape, Name: "test", Vocab: testVocab(), Type: F16, Seed: 7, Std: 0.02, UTF8Guard: true}
	if err := WriteRandom(path, r); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if kv, _ := f.Get("general.architecture"); kv.Value != "qwen3" {
		t.Errorf("architecture %v", kv.Value)
	}
	if kv, _ := f.Get("qwen3.attention.head_count_kv"); kv.Value != uint32(1) {
		t.Errorf("head_count_kv %v", kv.Value)
	}
	if kv, _ := f.Get("tokenizer.ggml.tokens"); len(kv.Value.(Array).Values) != 6 {
		t.Errorf("tokens %v", kv.Value)
	}
	// 2 + output + 11 per layer
	if len(f.Tensors) != 3+11*2 {
		t.Fatalf("%d tensors", len(f.Tensors))
	}
	st, _ := os.Stat(path)
	want := f.DataOffset
	for _, ti := range f.Tensors {
		n := int64(1)
		for _, d := range ti.Dims {
			n *= int64(d)
		}
		size := 2 * n
		if ti.Type == F32 {
			size = 4 * n
		}
		if int64(ti.Offset)%DefaultAlignment != 0 {
			t.Errorf("%s at unaligned offset %d", ti.Name, ti.Offset)
		}
		want = f.DataOffset + int64(ti.Offset) + size
	}
	if st.Size() != want {
		t.Errorf("file is %d bytes, tensors end at %d", st.Size(), want)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}

func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	sum := func(name string) [32]byte {
		p := filepath.Join(dir, name)
		if err := WriteRandom(p, Random{Shape: testShape, Name: "t", Vocab: testVocab(), Type: F16, Seed: 3, Std: 0.02}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		return sha256.Sum256(b)
	}
	if sum("a.gguf") != sum("b.gguf") {
		t.Fatal("the same inputs wrote different files")
	}
}

func TestValuesAreNormal(t *testing.T) {
	var buf bytes.Buffer
	n := uint64(1 << 18)
	if err := normal16(F16, n, 0.02, 1, nil)(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var s, s2 float64
	for i := uint64(0); i < n; i++ {
		v := float64(f16ToFloat(uint16(b[2*i]) | uint16(b[2*i+1])<<8))
		s += v
		s2 += v * v
	}
	mean, std := s/float64(n), math.Sqrt(s2/float64(n))
	if math.Abs(mean) > 0.001 || math.Abs(std-0.02) > 0.001 {
		t.Fatalf("mean %g std %g, want 0 and 0.02", mean, std)
	}
}

func TestFloat16(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e6, 0x7c00}, {6.1035156e-05, 0x0400}, {5.9604645e-08, 0x0001}, {0.1, 0x2e66}, {16, 0x4c00}, {-100, 0xd640}} {
		if got := Float16(c.f); got != c.h {
			t.Errorf("Float16(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
}

// f16ToFloat decodes normal and zero halves (enough for the test).
func f16ToFloat(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10)&0x1f, float32(h&0x3ff)
	if e == 0 {
		return sign * m / 1024 * float32(math.Pow(2, -14))
	}
	return sign * (1 + m/1024) * float32(math.Pow(2, float64(e-15)))
}

func TestFragmentTokens(t *testing.T) {
	bad, n, err := FragmentTokens(testVocab())
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, false, true, false, false}
	for i := range want {
		if bad[i] != want[i] {
			t.Errorf("token %d: fragment %v, want %v", i, bad[i], want[i])
		}
	}
	if n != 1 {
		t.Errorf("%d fragments, want 1", n)
	}
}

// With the guard, the output projection's dimension 0 is -100 for
// exactly the fragment tokens, every token's embedding carries the
// constant there, and no layer reads or writes it.
func TestGuardPatches(t *testing.T) {
	bad := []bool{false, true, false}
	in := uint64(4)
	buf := make([]byte, 2*in*3)
	for i := range buf {
		buf[i] = 0x11
	}
	guardPatch("output", in, F16, bad)(0, buf)
	for row := uint64(0); row < 3; row++ {
		got := uint16(buf[2*row*in]) | uint16(buf[2*row*in+1])<<8
		want := Float16(0)
		if bad[row] {
			want = Float16(-guardPenalty)
		}
		if got != want {
			t.Errorf("output row %d dim 0 = %#04x, want %#04x", row, got, want)
		}
		if buf[2*row*in+2] != 0x11 {
			t.Errorf("output row %d dim 1 changed", row)
		}
	}
	// a chunk of elements 2..7 (in = 4) starts mid-row: the reader patch
	// zeroes element 4 (row 1, column 0) only; the writer patch zeroes
	// elements 2 and 3 (the rest of row 0, output dimension 0).
	r := bytes.Repeat([]byte{0x22}, 12)
	guardPatch("reader", in, F16, nil)(2, r)
	if !bytes.Equal(r, []byte{0x22, 0x22, 0x22, 0x22, 0, 0, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22}) {
		t.Errorf("reader patch: %v", r)
	}
	w := bytes.Repeat([]byte{0x22}, 12)
	guardPatch("writer", in, F16, nil)(2, w)
	if !bytes.Equal(w, []byte{0, 0, 0, 0, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22}) {
		t.Errorf("writer patch: %v", w)
	}
}

// The real Qwen vocabulary, when the llama.cpp source is extracted
// (make llamacpp-src): 1,448 tokens are byte fragments.
func TestQwenFragments(t *testing.T) {
	path := os.Getenv("SERVELAB_LLAMACPP_VOCAB")
	if path == "" {
		path = "../../.llamacpp/src/models/ggml-vocab-qwen2.gguf"
	}
	v, err := ReadFile(path)
	if err != nil {
		t.Skipf("no Qwen vocabulary (make llamacpp-src): %v", err)
	}
	bad, n, err := FragmentTokens(v)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1448 || len(bad) != 151936 {
		t.Fatalf("%d fragments of %d tokens, want 1448 of 151936", n, len(bad))
	}
}
