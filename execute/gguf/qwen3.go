package gguf

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Shape is a Qwen3 dense model's architecture.
type Shape struct {
	Layers, Hidden, FFN, Heads, KVHeads, HeadDim, Context int
	RopeBase, RMSEps                                      float64
	// Tied models reuse the token embedding as the output projection.
	Tied bool
}

// Shapes are the Qwen3 sizes servelab writes: tiny for tests on a CPU,
// the others as published in each model's config.json.
var Shapes = map[string]Shape{
	"tiny": {Layers: 2, Hidden: 256, FFN: 768, Heads: 4, KVHeads: 2, HeadDim: 64, Context: 4096, RopeBase: 1e6, RMSEps: 1e-6, Tied: true},
	"0.6b": {Layers: 28, Hidden: 1024, FFN: 3072, Heads: 16, KVHeads: 8, HeadDim: 128, Context: 40960, RopeBase: 1e6, RMSEps: 1e-6, Tied: true},
	"4b":   {Layers: 36, Hidden: 2560, FFN: 9728, Heads: 32, KVHeads: 8, HeadDim: 128, Context: 40960, RopeBase: 1e6, RMSEps: 1e-6, Tied: true},
	"8b":   {Layers: 36, Hidden: 4096, FFN: 12288, Heads: 32, KVHeads: 8, HeadDim: 128, Context: 32768, RopeBase: 1e6, RMSEps: 1e-6},
}

// ShapeNames lists Shapes' keys in order.
func ShapeNames() []string {
	var names []string
	for n := range Shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Params is the model's parameter count for a vocabulary of n tokens.
func (s Shape) Params(vocab int) int64 {
	var n int64
	for _, t := range s.tensors(vocab, F16) {
		n += int64(t.Elements())
	}
	return n
}

// Random describes a random-weight Qwen3 model to write.
type Random struct {
	Shape Shape
	Name  string
	// Vocab is a GGUF file whose tokenizer.* metadata is copied (for
	// Qwen3, llama.cpp's models/ggml-vocab-qwen2.gguf).
	Vocab *File
	// Type is F16 or BF16 for the matrices; norms are always F32.
	Type TensorType
	Seed uint64
	// Std is the standard deviation of the matrices' values.
	Std float64
	// UTF8Guard keeps the model from choosing tokens that are not valid
	// UTF-8 on their own (utf8guard.go says why); it needs an untied
	// output projection, so it unties a tied shape.
	UTF8Guard bool
}

// WriteRandom writes r to path. Values are drawn deterministically from
// Seed and each tensor's name, so the same inputs give the same file
// whatever the number of cores.
func WriteRandom(path string, r Random) error {
	kvs, vocab, err := r.metadata()
	if err != nil {
		return err
	}
	var bad []bool
	s := r.Shape
	if r.UTF8Guard {
		if bad, _, err = FragmentTokens(r.Vocab); err != nil {
			return err
		}
		s.Tied = false
	}
	var tensors []Tensor
	for _, t := range s.tensors(vocab, r.Type) {
		if len(t.Dims) == 1 {
			t.Fill = constF32(t.Elements(), 1)
		} else {
			var patch func(uint64, []byte)
			if r.UTF8Guard {
				patch = guardPatch(t.role, t.Dims[0], t.Type, bad)
			}
			t.Fill = normal16(t.Type, t.Elements(), r.Std, r.Seed^nameHash(t.Name), patch)
		}
		tensors = append(tensors, t.Tensor)
	}
	return WriteFile(path, kvs, tensors)
}

func (r Random) metadata() ([]KV, int, error) {
	if r.Vocab == nil {
		return nil, 0, fmt.Errorf("no vocabulary file")
	}
	if r.Type != F16 && r.Type != BF16 {
		return nil, 0, fmt.Errorf("type %d: want F16 or BF16", r.Type)
	}
	tok, ok := r.Vocab.Get("tokenizer.ggml.tokens")
	arr, isArr := tok.Value.(Array)
	if !ok || !isArr || len(arr.Values) == 0 {
		return nil, 0, fmt.Errorf("the vocabulary file has no tokenizer.ggml.tokens")
	}
	s := r.Shape
	u := func(k string, v int) KV { return KV{"qwen3." + k, TypeUint32, uint32(v)} }
	fileType := uint32(1) // LLAMA_FTYPE_MOSTLY_F16
	if r.Type == BF16 {
		fileType = 32 // LLAMA_FTYPE_MOSTLY_BF16
	}
	kvs := []KV{
		{"general.architecture", TypeString, "qwen3"},
		{"general.name", TypeString, r.Name},
		{"general.file_type", TypeUint32, fileType},
		u("block_count", s.Layers),
		u("context_length", s.Context),
		u("embedding_length", s.Hidden),
		u("feed_forward_length", s.FFN),
		u("attention.head_count", s.Heads),
		u("attention.head_count_kv", s.KVHeads),
		u("attention.key_length", s.HeadDim),
		u("attention.value_length", s.HeadDim),
		{"qwen3.rope.freq_base", TypeFloat32, float32(s.RopeBase)},
		{"qwen3.attention.layer_norm_rms_epsilon", TypeFloat32, float32(s.RMSEps)},
	}
	for _, kv := range r.Vocab.KV {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			kvs = append(kvs, kv)
		}
	}
	return kvs, len(arr.Values), nil
}

// tensor is a tensor of the model and its role for the UTF-8 guard.
type tensor struct {
	Tensor
	role string
}

// tensors lists the model's tensors in llama.cpp's names and ggml's
// dimension order (input features first).
func (s Shape) tensors(vocab int, typ TensorType) []tensor {
	mat := func(name, role string, in, out int) tensor {
		return tensor{Tensor{Name: name, Dims: []uint64{uint64(in), uint64(out)}, Type: typ}, role}
	}
	vec := func(name string, n int) tensor {
		return tensor{Tensor: Tensor{Name: name, Dims: []uint64{uint64(n)}, Type: F32}}
	}
	q, kv := s.Heads*s.HeadDim, s.KVHeads*s.HeadDim
	ts := []tensor{mat("token_embd.weight", "embed", s.Hidden, vocab), vec("output_norm.weight", s.Hidden)}
	if !s.Tied {
		ts = append(ts, mat("output.weight", "output", s.Hidden, vocab))
	}
	for i := 0; i < s.Layers; i++ {
		b := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			vec(b+"attn_norm.weight", s.Hidden),
			mat(b+"attn_q.weight", "reader", s.Hidden, q),
			mat(b+"attn_k.weight", "reader", s.Hidden, kv),
			mat(b+"attn_v.weight", "reader", s.Hidden, kv),
			mat(b+"attn_output.weight", "writer", q, s.Hidden),
			vec(b+"attn_q_norm.weight", s.HeadDim),
			vec(b+"attn_k_norm.weight", s.HeadDim),
			vec(b+"ffn_norm.weight", s.Hidden),
			mat(b+"ffn_gate.weight", "reader", s.Hidden, s.FFN),
			mat(b+"ffn_up.weight", "reader", s.Hidden, s.FFN),
			mat(b+"ffn_down.weight", "writer", s.FFN, s.Hidden),
		)
	}
	return ts
}

func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func constF32(n uint64, v float32) func(io.Writer) error {
	return func(w io.Writer) error {
		buf := make([]byte, 4*n)
		for i := uint64(0); i < n; i++ {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		_, err := w.Write(buf)
		return err
	}
}

// chunk is how many values one generator stream fills; chunks are
// filled in parallel and written in order.
const chunk = 1 << 20

// normal16 fills n half-precision values drawn from N(0, std²). Each
// chunk has its own PCG stream seeded by (seed, chunk index), so the
// bytes do not depend on scheduling. Values come from a 65,536-entry
// table of the normal distribution's quantiles, indexed by 16 random
// bits: exact enough for weights whose values do not matter, and fast
// enough to write an 8B model in seconds.
func normal16(typ TensorType, n uint64, std float64, seed uint64, patch func(base uint64, buf []byte)) func(io.Writer) error {
	return func(w io.Writer) error {
		table := quantileTable(typ, std)
		chunks := (n + chunk - 1) / chunk
		workers := uint64(runtime.GOMAXPROCS(0))
		for start := uint64(0); start < chunks; start += workers {
			end := min(start+workers, chunks)
			bufs := make([][]byte, end-start)
			var wg sync.WaitGroup
			for c := start; c < end; c++ {
				wg.Add(1)
				go func(c uint64) {
					defer wg.Done()
					m := min(chunk, n-c*chunk)
					buf := make([]byte, 2*m)
					rng := rand.NewPCG(seed, c)
					for i := uint64(0); i < m; i += 4 {
						r := rng.Uint64()
						for j := uint64(0); j < 4 && i+j < m; j++ {
							binary.LittleEndian.PutUint16(buf[2*(i+j):], table[uint16(r>>(16*j))])
						}
					}
					if patch != nil {
						patch(c*chunk, buf)
					}
					bufs[c-start] = buf
				}(c)
			}
			wg.Wait()
			for _, b := range bufs {
				if _, err := w.Write(b); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

var tables sync.Map

func quantileTable(typ TensorType, std float64) *[65536]uint16 {
	key := fmt.Sprint(typ, std)
	if t, ok := tables.Load(key); ok {
		return t.(*[65536]uint16)
	}
	var t [65536]uint16
	for i := range t {
		p := (float64(i) + 0.5) / 65536
		v := std * math.Sqrt2 * math.Erfinv(2*p-1)
		t[i] = half(typ, float32(v))
	}
	tables.Store(key, &t)
	return &t
}

// Float16 converts f to IEEE half precision, rounding to nearest even.
func Float16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case (b>>23)&0xff == 0xff: // inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		if rem := mant & (1<<shift - 1); rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++
	}
	return sign | uint16(r)
}
