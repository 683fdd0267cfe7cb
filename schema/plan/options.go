package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// optionsFile writes dotted option keys as a YAML document, keys sorted
// at every level so that the same options always give the same bytes,
// and names it by a hash of those bytes.
func optionsFile(opts map[string]any) (name, body string) {
	tree := map[string]any{}
	for k, v := range opts {
		node := tree
		parts := strings.Split(k, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := node[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			node = next
		}
		node[parts[len(parts)-1]] = v
	}
	var b strings.Builder
	writeYAML(&b, tree, 0)
	sum := sha256.Sum256([]byte(b.String()))
	return "extra-llm-api-options-" + hex.EncodeToString(sum[:8]) + ".yaml", b.String()
}

func writeYAML(b *strings.Builder, m map[string]any, indent int) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		pad := strings.Repeat("  ", indent)
		if sub, ok := m[k].(map[string]any); ok {
			fmt.Fprintf(b, "%s%s:\n", pad, k)
			writeYAML(b, sub, indent+1)
			continue
		}
		fmt.Fprintf(b, "%s%s: %s\n", pad, k, yamlScalar(m[k]))
	}
}

// yamlScalar quotes strings (so "fp8", "on" or "1e3" stay strings) and
// writes numbers and booleans plainly.
func yamlScalar(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return format(v)
}
