package diff

import "strings"

// longText is the length from which a changed setting is shown word by
// word rather than whole, before and after.
const longText = 80

// context is how many unchanged words stand on each side of a change.
const context = 4

// wordDiff is the change from a to b word by word when both are long
// texts ("" otherwise): runs of unchanged words longer than twice the
// context are cut to "…", removed words are [-marked-] and added ones
// {+marked+}, as git's word diff writes them.
func wordDiff(a, b string) string {
	if len(a) < longText || len(b) < longText {
		return ""
	}
	x, y := strings.Fields(a), strings.Fields(b)
	ops := lcsOps(x, y)
	var out []string
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && ops[j].kind == ops[i].kind {
			j++
		}
		out = append(out, run(ops[i:j], i == 0, j == len(ops))...)
		i = j
	}
	return strings.Join(out, " ")
}

type op struct {
	kind byte // '=', '-', '+'
	word string
}

// run writes a run of one kind: changes whole, unchanged words cut to
// the context next to the changes around them.
func run(ops []op, first, last bool) []string {
	words := make([]string, len(ops))
	for i, o := range ops {
		words[i] = o.word
	}
	switch ops[0].kind {
	case '-':
		return []string{"[-" + strings.Join(words, " ") + "-]"}
	case '+':
		return []string{"{+" + strings.Join(words, " ") + "+}"}
	}
	head, tail := context, context
	if first {
		head = 0
	}
	if last {
		tail = 0
	}
	if len(words) <= head+tail+1 {
		return words
	}
	out := append([]string{}, words[:head]...)
	out = append(out, "…")
	return append(out, words[len(words)-tail:]...)
}

// lcsOps is the shortest edit from x to y through their longest common
// subsequence of words. Settings are a few hundred words at most, so
// the quadratic table is small.
func lcsOps(x, y []string) []op {
	n, m := len(x), len(y)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			ops = append(ops, op{'=', x[i]})
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			ops = append(ops, op{'-', x[i]})
			i++
		default:
			ops = append(ops, op{'+', y[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, op{'-', x[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, op{'+', y[j]})
	}
	return ops
}
