package dataset

import (
	"math/rand/v2"

	"servelab.dev/execute/load"
)

// PrefixRepetition makes vLLM's prefix-repetition prompts lazily, as
// token ids: prefixes random prefixes of prefixLen tokens, and for each
// request one of them, drawn at random, followed by a suffix of
// suffixLen tokens of its own; every output is outputLen tokens. A
// request shares its prefix with about n/prefixes others, which is what
// a prefix cache can reuse.
func PrefixRepetition(prefixLen, suffixLen, prefixes, outputLen, n int, seed uint64) load.Prompts {
	return &prefixSource{prefixLen: prefixLen, suffixLen: suffixLen, prefixes: prefixes, out: outputLen, n: n, seed: seed}
}

type prefixSource struct {
	prefixLen, suffixLen, prefixes, out, n int
	seed                                   uint64
}

func (s *prefixSource) Len() int { return s.n }

func (s *prefixSource) At(i int) load.Prompt {
	rng := rand.New(rand.NewPCG(s.seed, 0x5f1e^uint64(i+1)*0x9e3779b97f4a7c15))
	p := rng.IntN(s.prefixes)
	prng := rand.New(rand.NewPCG(s.seed, 0x9ef1^uint64(p+1)*0xbf58476d1ce4e5b9))
	ids := make([]int, 0, s.prefixLen+s.suffixLen)
	for range s.prefixLen {
		ids = append(ids, 100+prng.IntN(20000))
	}
	for range s.suffixLen {
		ids = append(ids, 100+rng.IntN(20000))
	}
	return load.Prompt{TokenIDs: ids, MaxTokens: s.out, InputTokens: len(ids)}
}
