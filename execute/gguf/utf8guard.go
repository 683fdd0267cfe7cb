package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"
)

// Why the guard exists: llama-server (from the pinned llama.cpp on) runs
// every generated text, streamed or not, /v1/completions included,
// through its chat parser (tools/server/server-queue.cpp creates a parse
// state for every task; server-task.cpp parses each partial and final
// result). Even the plain "Content-only" parser fails on malformed UTF-8
// (common/peg-parser.cpp: an INVALID code point is FAIL), and the request
// ends with "The model produced output that does not match the expected
// Content-only format". No server flag (--no-jinja, --reasoning-format
// none, --chat-template) and no endpoint skips that parse. Random
// weights sample any token, and 1,448 of Qwen's 151,936 tokens are byte
// fragments that are not valid UTF-8 on their own; a 128-token answer
// then fails about half the time. The guard keeps the model from ever
// choosing those tokens, without touching the tokenizer, the server or
// the request: hidden dimension 0 carries a constant that no layer reads
// or writes, and the output projection turns it into a large negative
// logit for exactly the fragment tokens. Every matrix keeps its shape and
// type, so a forward pass costs what it did.
const (
	guardConst   = 16  // the constant in hidden dimension 0
	guardPenalty = 100 // output weight of a fragment token on dimension 0
)

// FragmentTokens lists the tokens of a byte-level BPE vocabulary (GPT-2
// style, as Qwen's) whose bytes are not valid UTF-8 on their own. Any
// sequence of the other tokens decodes to valid UTF-8.
func FragmentTokens(vocab *File) ([]bool, int, error) {
	tok, _ := vocab.Get("tokenizer.ggml.tokens")
	arr, ok := tok.Value.(Array)
	if !ok {
		return nil, 0, fmt.Errorf("the vocabulary file has no tokenizer.ggml.tokens")
	}
	if m, _ := vocab.Get("tokenizer.ggml.model"); m.Value != "gpt2" {
		return nil, 0, fmt.Errorf("tokenizer model %v: the UTF-8 guard knows byte-level BPE (gpt2) only", m.Value)
	}
	var types []any
	if tt, ok := vocab.Get("tokenizer.ggml.token_type"); ok {
		if a, ok := tt.Value.(Array); ok && len(a.Values) == len(arr.Values) {
			types = a.Values
		}
	}
	dec := byteDecoder()
	bad := make([]bool, len(arr.Values))
	n := 0
	for i, v := range arr.Values {
		s, _ := v.(string)
		if types != nil && types[i] != int32(1) {
			// control and user-defined tokens are literal text
			bad[i] = !utf8.ValidString(s)
		} else {
			var b []byte
			for _, r := range s {
				c, ok := dec[r]
				if !ok {
					b = append(b, string(r)...)
					continue
				}
				b = append(b, c)
			}
			bad[i] = !utf8.Valid(b)
		}
		if bad[i] {
			n++
		}
	}
	return bad, n, nil
}

// byteDecoder inverts GPT-2's bytes_to_unicode: printable bytes stand
// for themselves, the others for code points from 256 on.
func byteDecoder() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff) {
			m[rune(b)] = byte(b)
		} else {
			m[rune(256+n)] = byte(b)
			n++
		}
	}
	return m
}

// guardPatch returns the change the guard makes to a matrix: a function
// that rewrites the values of elements [base, base+len(buf)/2) in place,
// or nil for tensors it leaves alone. in is the matrix's input size
// (ggml's ne0): element i is row i/in, column i%in.
func guardPatch(role string, in uint64, typ TensorType, bad []bool) func(base uint64, buf []byte) {
	enc := func(v float32) uint16 { return half(typ, v) }
	set := func(buf []byte, base, i uint64, v uint16) {
		binary.LittleEndian.PutUint16(buf[2*(i-base):], v)
	}
	column0 := func(value func(row uint64) uint16) func(uint64, []byte) {
		return func(base uint64, buf []byte) {
			end := base + uint64(len(buf))/2
			for i := (base + in - 1) / in * in; i < end; i += in {
				set(buf, base, i, value(i/in))
			}
		}
	}
	zero, c, p := enc(0), enc(guardConst), enc(-guardPenalty)
	switch role {
	case "embed": // every token carries the constant
		return column0(func(uint64) uint16 { return c })
	case "reader": // q, k, v, gate, up ignore dimension 0
		return column0(func(uint64) uint16 { return zero })
	case "writer": // attn_output and ffn_down never write dimension 0
		return func(base uint64, buf []byte) {
			for i := base; i < min(in, base+uint64(len(buf))/2); i++ {
				set(buf, base, i, zero)
			}
		}
	case "output":
		return column0(func(row uint64) uint16 {
			if int(row) < len(bad) && bad[row] {
				return p
			}
			return zero
		})
	}
	return nil
}

func half(typ TensorType, v float32) uint16 {
	if typ == BF16 {
		return uint16(math.Float32bits(v) >> 16)
	}
	return Float16(v)
}
