package main

import (
	"strconv"
	"strings"

	"servelab.dev/schema"
)

// parseRandom reads --random IN,OUT: two token counts.
func parseRandom(s string) (in, out int, err error) {
	a, b, ok := strings.Cut(s, ",")
	in, err1 := strconv.Atoi(strings.TrimSpace(a))
	out, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || in < 1 || out < 1 || in > schema.MaxTokens || out > schema.MaxTokens {
		return 0, 0, usagef("--random %q: want INPUT,OUTPUT token counts, each 1 to %d (e.g. --random 1024,128)", s, schema.MaxTokens)
	}
	return in, out, nil
}
