package dataset

import (
	"hash/fnv"
	"strconv"
	"strings"

	"servelab.dev/execute/load"
)

// SharedBlock is the block size of the shared-prefix measure: vLLM's KV
// block, the unit a prefix cache reuses.
const SharedBlock = 16

// sharedLimit bounds how many blocks SharedPrefix remembers, so that a
// long run of unique prompts costs a bounded map.
const sharedLimit = 1 << 22

// SharedPrefix is the share of the prompt tokens of prompts from..n−1
// that lie in whole blocks of a prefix some earlier prompt (warm-up ones
// included) began with: the hit rate an unbounded prefix cache would
// reach on the measured requests, whatever the engine. Token ids are the
// units of token-id prompts; words (and message roles) stand in for the
// tokens of text.
func SharedPrefix(ps load.Prompts, from, n int) float64 {
	seen := map[uint64]bool{}
	total, shared := 0, 0
	for i := range min(n, ps.Len()) {
		units := promptUnits(ps.At(i))
		measured := i >= from
		if measured {
			total += len(units)
		}
		h := fnv.New64a()
		hit := true
		for k := 0; k+SharedBlock <= len(units); k += SharedBlock {
			for _, u := range units[k : k+SharedBlock] {
				h.Write([]byte(u))
				h.Write([]byte{0})
			}
			key := h.Sum64()
			if hit && seen[key] {
				if measured {
					shared += SharedBlock
				}
				continue
			}
			hit = false
			if len(seen) < sharedLimit {
				seen[key] = true
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(shared) / float64(total)
}

func promptUnits(p load.Prompt) []string {
	if p.TokenIDs != nil {
		out := make([]string, len(p.TokenIDs))
		for i, id := range p.TokenIDs {
			out[i] = strconv.Itoa(id)
		}
		return out
	}
	if p.Messages == nil {
		return strings.Fields(p.Text)
	}
	var out []string
	for _, m := range p.Messages {
		out = append(out, "<|"+m.Role+"|>")
		out = append(out, strings.Fields(m.Content)...)
	}
	return out
}
