package record

// Agreement is the quality guard's figure for a variant against the
// incumbent: the share of the guard's prompts whose greedy outputs (their
// first Tokens tokens) are identical. ok is false when either side lacks
// outputs or they were made with different guard sizes. With random
// weights the figure still measures how much a change alters outputs,
// not whether they are right.
func Agreement(incumbent, variant *Quality) (share float64, ok bool) {
	if incumbent == nil || variant == nil || incumbent.Tokens != variant.Tokens ||
		len(incumbent.Outputs) == 0 || len(incumbent.Outputs) != len(variant.Outputs) {
		return 0, false
	}
	same := 0
	for i, o := range incumbent.Outputs {
		if variant.Outputs[i] == o {
			same++
		}
	}
	return float64(same) / float64(len(incumbent.Outputs)), true
}
