package sim

import (
	"container/list"
	"hash/fnv"
)

// blockTokens is the cache's block size, vLLM's default: a prompt is
// cached in whole blocks, each keyed by its tokens and every token
// before it, so equal keys mean equal prefixes.
const blockTokens = 16

// prefixCache is an LRU over blocks with a size limit, as vLLM's
// free-block queue evicts: a lookup touches the blocks it finds, an
// insert past the limit drops the least recently used block.
type prefixCache struct {
	limit  int
	lru    *list.List // of uint64 keys, most recent at the front
	blocks map[uint64]*list.Element
}

func newPrefixCache(limit int) *prefixCache {
	return &prefixCache{limit: limit, lru: list.New(), blocks: map[uint64]*list.Element{}}
}

// keys are the chained hashes of the prompt's whole blocks.
func blockKeys(prompt []string) []uint64 {
	h := fnv.New64a()
	keys := make([]uint64, 0, len(prompt)/blockTokens)
	for i := 0; i+blockTokens <= len(prompt); i += blockTokens {
		for _, w := range prompt[i : i+blockTokens] {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		keys = append(keys, h.Sum64())
	}
	return keys
}

// admit returns how many leading tokens of prompt were cached, then
// caches all of its whole blocks. A prompt that is entirely cached
// still computes its last token, as vLLM does, so at most
// len(prompt)−1 tokens hit.
func (c *prefixCache) admit(prompt []string) int {
	keys := blockKeys(prompt)
	hit := 0
	for _, k := range keys {
		el, ok := c.blocks[k]
		if !ok {
			break
		}
		c.lru.MoveToFront(el)
		hit++
	}
	for _, k := range keys[hit:] {
		c.put(k)
	}
	cached := hit * blockTokens
	if cached == len(prompt) && cached > 0 {
		cached -= blockTokens
	}
	return cached
}

func (c *prefixCache) put(k uint64) {
	if el, ok := c.blocks[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	if c.limit <= 0 {
		return
	}
	for c.lru.Len() >= c.limit {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.blocks, old.Value.(uint64))
	}
	c.blocks[k] = c.lru.PushFront(k)
}

func (c *prefixCache) reset() {
	c.lru.Init()
	clear(c.blocks)
}
