package plan

import "testing"

// A trial's prompt seed follows its load and repeat; a dataset's own
// seed fixes the prompts across them (and changes the key), and leaves
// the arrivals to the load.
func TestDatasetSeed(t *testing.T) {
	a := Spec{Profile: ProfileSpec{Kind: "poisson", Requests: 10, Rate: 2}}
	b := a
	b.Profile.Rate = 4
	pa, aa := a.Seeds()
	pb, ab := b.Seeds()
	if pa == pb || aa == ab {
		t.Error("two loads draw the same prompts or arrivals")
	}
	seed := 7
	a.Benchmark.Dataset.Seed, b.Benchmark.Dataset.Seed = &seed, &seed
	qa, ra := a.Seeds()
	qb, rb := b.Seeds()
	if qa != qb || qa == pa {
		t.Error("the dataset's seed does not fix the prompts")
	}
	if ra != aa || rb != ab {
		t.Error("the dataset's seed changed the arrivals")
	}
	c := a
	other := 8
	c.Benchmark.Dataset.Seed = &other
	if qc, _ := c.Seeds(); qc == qa || c.Key() == a.Key() {
		t.Error("another dataset seed draws the same prompts or has the same key")
	}
}
