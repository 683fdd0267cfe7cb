package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"servelab.dev/execute/load"
)

// Tolerance is how far a text prompt's token count may be from its
// target, as a fraction (and never less than one token).
const Tolerance = 0.01

// vocabulary holds common English words that BPE tokenizers of current
// models (Llama, Qwen, Mistral, GPT) each keep as one token with its
// leading space, so a prompt of N words is close to N tokens before the
// engine's tokenizer makes it exact.
var vocabulary = strings.Fields(`the of and to in is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their has would when if so no will
can more other its who them time only some could new these two may first then do any like my now over
such our man me even most made after also did many before must through back years where much your way
well down should because each just those people how too little state good very make world still own see
men work long get here between both life being under never day same another know while last might us great
old year off come since against go came right used take three small large next early young important few
public bad same able open city water money story fact month lot book eye job word business issue side kind
head house service friend father power hour game line end member law car name president team minute idea
body information back parent face others level office door health person art war history party result
change morning reason research girl guy moment air teacher force education foot boy age policy process
music market sense nation plan college interest death experience effect class control care field
development role effort rate heart drug show leader light voice wife police mind price report decision son
view relationship town road arm difference value building action model season society tax director
position player record paper space ground form event official matter center couple site project activity
star table need court oil situation cost industry figure street image phone data picture practice piece
land product doctor wall patient worker news test movie north love support technology step baby computer
type attention film tree source organization hair window evidence population truth song history`)

// RandomText makes n chat prompts of random words whose token counts,
// by the engine's tokenizer, are the lengths vLLM's random dataset would
// draw (uniform in [L(1−r), L(1+r)], after a shared prefix of prefix
// tokens), each within Tolerance. Token-id prompts cannot travel in a
// chat message, so text is the only way to send a prompt of a known
// length there; without a tokenizer the length cannot be known and
// RandomText refuses.
func RandomText(in, out int, r float64, prefix, n int, seed uint64, tok Tokenizer) (Set, error) {
	if tok == nil {
		return Set{}, fmt.Errorf("random prompts for the chat API need the engine's tokenizer endpoint (/tokenize) to make text of %d tokens, and the server has none: use the completions API, whose random prompts are token ids", in)
	}
	rng := rand.New(rand.NewPCG(seed, 0x7a2d0f11))
	span := func(l int) int {
		lo, hi := int(math.Floor(float64(l)*(1-r))), int(math.Ceil(float64(l)*(1+r)))
		return max(1, lo+rng.IntN(hi-lo+1))
	}
	g := &textGen{rng: rng, tok: tok}
	if err := g.calibrate(); err != nil {
		return Set{}, err
	}
	shared := ""
	if prefix > 0 {
		var err error
		if shared, _, err = g.fit("", prefix); err != nil {
			return Set{}, err
		}
	}
	set := Set{}
	for i := 0; i < n; i++ {
		want, budget := span(in), span(out)
		text, got, err := g.fit(shared, prefix+want)
		if err != nil {
			return Set{}, err
		}
		set.Prompts = append(set.Prompts, load.Prompt{Text: text, MaxTokens: budget, InputTokens: got})
	}
	return set, nil
}

// textGen draws words and fits texts to token counts.
type textGen struct {
	rng   *rand.Rand
	tok   Tokenizer
	ratio float64 // tokens per word, measured
}

// calibrate measures the tokenizer's tokens per word on a long text.
func (g *textGen) calibrate() error {
	text := g.words(nil, 1000)
	c, err := g.tok(strings.Join(text, " "))
	if err != nil {
		return fmt.Errorf("tokenizer: %w", err)
	}
	if c <= 0 {
		return fmt.Errorf("tokenizer: %d tokens for 1000 words", c)
	}
	g.ratio = float64(c) / 1000
	return nil
}

func (g *textGen) words(w []string, n int) []string {
	for range n {
		w = append(w, vocabulary[g.rng.IntN(len(vocabulary))])
	}
	return w
}

// fit returns head followed by random words, counted want tokens by
// the tokenizer (or within Tolerance), and its count. Words are added or
// dropped from the end by the measured ratio until the count fits.
func (g *textGen) fit(head string, want int) (string, int, error) {
	var w []string
	if head != "" {
		w = append(w, head)
	}
	base := len(w)
	text := head
	got := 0
	if head != "" {
		var err error
		if got, err = g.tok(head); err != nil {
			return "", 0, fmt.Errorf("tokenizer: %w", err)
		}
	}
	tol := max(1, int(Tolerance*float64(want)))
	for try := 0; try < 8; try++ {
		if d := want - got; d > 0 {
			w = g.words(w, max(1, int(float64(d)/g.ratio)))
		} else if d < 0 {
			w = w[:max(base, len(w)-max(1, int(float64(-d)/g.ratio)))]
		}
		text = strings.Join(w, " ")
		c, err := g.tok(text)
		if err != nil {
			return "", 0, fmt.Errorf("tokenizer: %w", err)
		}
		got = c
		if abs(got-want) <= tol {
			return text, got, nil
		}
	}
	return "", 0, fmt.Errorf("could not make a prompt of %d tokens (got %d): the tokenizer does not count words as expected", want, got)
}

func abs(x int) int { return max(x, -x) }

// AsText turns token-id prompts into text for the chat API, which takes
// no token ids: each id becomes a word of the vocabulary (one token
// each, with its leading space, in current BPE tokenizers), so equal
// ids stay equal text and equal prefixes stay equal prefixes. Lengths
// are claimed as the ids' count, and the client checks that claim
// against the server's usage.
func AsText(ps load.Prompts) load.Prompts { return textPrompts{ps} }

type textPrompts struct{ load.Prompts }

func (t textPrompts) At(i int) load.Prompt {
	p := t.Prompts.At(i)
	var b strings.Builder
	for k, id := range p.TokenIDs {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocabulary[id%len(vocabulary)])
	}
	p.Text, p.TokenIDs = b.String(), nil
	return p
}
