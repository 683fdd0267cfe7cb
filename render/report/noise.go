package report

import (
	"math"
	"slices"

	"servelab.dev/execute/decide"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// yardstick is the run-to-run spread, as a share of the mean, that a
// comparison without an interval is read against, and the runs that
// show it: those of either compared configuration where one has two or
// more, else the study's nearRepeat steps. ok is false where neither
// exists, and the widest spread in the study stands in (spreadNote).
func (b *builder) yardstick(st decide.Step) (spread float64, who d.Text, ok bool) {
	c := st.Comparison
	for _, o := range withIncumbent(st) {
		v := o.Value
		if o.Variant != c.A && o.Variant != c.B || v == nil || v.Runs < 2 || v.Low == nil || v.High == nil || v.Mean == 0 {
			continue
		}
		if w := (*v.High - *v.Low) / v.Mean; w > spread {
			name := d.M("%d runs of %s", v.Runs, b.optionName(studyStep(b.s, st.ID), o.Variant))
			spread, who, ok = w, d.M("the runs of one configuration (%s)", name), true
		}
	}
	if ok {
		return spread, who, true
	}
	return b.repeatSpread()
}

// repeatSpread is the largest difference a nearRepeat step measured
// between an option and the incumbent it in effect repeats.
func (b *builder) repeatSpread() (float64, d.Text, bool) {
	var spread float64
	var titles []d.Text
	for _, st := range b.a.Steps {
		ss := studyStep(b.s, st.ID)
		if ss == nil || !ss.NearRepeat || st.Incumbent == nil || st.Incumbent.Value == nil || st.Incumbent.Value.Mean == 0 {
			continue
		}
		for _, o := range st.Options {
			if o.Value != nil && o.Invalid == nil {
				spread = max(spread, math.Abs(o.Value.Mean/st.Incumbent.Value.Mean-1))
			}
		}
		titles = append(titles, d.M("“%s”", d.Prose(ss.Title)))
	}
	if len(titles) == 0 || spread == 0 {
		return 0, nil, false
	}
	return spread, nearRuns{d.M("the near-repeat runs (%s)", andList(titles))}, true
}

// nearRuns names the near-repeat runs with their steps; the page says
// the steps once (named).
type nearRuns struct{ d.Text }

// named is who as the page writes it here: the near-repeat runs'
// steps the first time, then the runs alone.
func (b *builder) named(who d.Text) d.Text {
	n, ok := who.(nearRuns)
	if !ok {
		return who
	}
	if b.nearSaid {
		return d.M("the near-repeat runs")
	}
	b.nearSaid = true
	return n.Text
}

// Where a difference without an interval falls against the yardstick.
const (
	withinNoise = iota // no more than the spread
	unsettled          // under three times it, or under the wider spread
	beyondNoise
)

// reading is a comparison without an interval read against the
// yardstick: its gap and the spread (rounded as the page prints them),
// the wider spread where one bounds the near-repeat runs (hiWho nil
// otherwise), and where the gap falls.
type reading struct {
	gap, spread, hi float64
	who, hiWho      d.Text
	tier            int
}

// readNoise is st's comparison read against the yardstick; ok is false
// where the comparison has an interval or there is no yardstick. Every
// sentence about the reading (the verdict, the adoption, the list of
// where the gain comes from) says this one.
func (b *builder) readNoise(st decide.Step) (reading, bool) {
	c := st.Comparison
	if c == nil || c.Interval != nil || c.Ratio <= 0 {
		return reading{}, false
	}
	spread, who, ok := b.yardstick(st)
	if !ok {
		return reading{}, false
	}
	return b.readAgainst(c.Ratio, spread, who), true
}

// readGain is the validation's gain on the objective, without an
// interval, read against the near-repeat runs; ok is false where the
// study has none.
func (b *builder) readGain(ratio float64) (reading, bool) {
	spread, who, ok := b.repeatSpread()
	if !ok || ratio <= 0 {
		return reading{}, false
	}
	return b.readAgainst(ratio, spread, who), true
}

// readAgainst places a ratio's gap against a spread, bounded above by
// the widest spread where the yardstick is the near-repeat runs.
func (b *builder) readAgainst(ratio, spread float64, who d.Text) reading {
	r := reading{gap: round3(gapShare(b.s.Objective.Metric, ratio)), spread: round3(spread), who: who}
	limit := 3 * r.spread
	if hi, hiWho, ranged := b.upper(who, r.spread); ranged {
		r.hi, r.hiWho, limit = hi, hiWho, hi
	}
	switch {
	case r.gap <= r.spread:
		r.tier = withinNoise
	case r.gap < limit:
		r.tier = unsettled
	default:
		r.tier = beyondNoise
	}
	return r
}

// noiseVerdict says the reading as the step's verdict. nil where there
// is none; a nearRepeat step's own comparison is the measure itself.
func (b *builder) noiseVerdict(ss *schema.Step, st decide.Step) d.Text {
	c := st.Comparison
	if c.Interval != nil || c.Ratio <= 0 || c.Verdict == decide.NoDifference && max(c.RunsA, c.RunsB) > 1 {
		return nil
	}
	if ss != nil && ss.NearRepeat {
		return d.M("Too few runs for an interval. The step's settings cannot change what the engine does at this load, so its runs are in effect repeats of the current configuration: this difference of %s measures run-to-run variation.", pct(round3(gapShare(b.s.Objective.Metric, c.Ratio))))
	}
	r, ok := b.readNoise(st)
	if !ok {
		return nil
	}
	return b.say(stepSay, r)
}

// noiseSource is the reading in the few words the list of where the
// gain comes from has room for (the step says the rest); nil where
// there is none.
func (b *builder) noiseSource(st decide.Step) d.Text {
	r, ok := b.readNoise(st)
	switch {
	case !ok:
		return nil
	case r.tier == withinNoise:
		return d.M("possibly noise")
	case r.tier == unsettled:
		return d.M("not settled")
	}
	return d.M("beyond the study's run-to-run variation")
}

// gainVerdict is the reading of the recommendation's gain, after why
// it has no interval (why).
func (b *builder) gainVerdict(why d.Text, r reading) d.Text {
	return b.say(gainSay, r, why)
}

// sayings are a reading's sentences, one per case. Each takes lead's
// arguments first, then who differ, the spread and the gap (within,
// unsettled, beyond: the last also the multiple), or the gap, the
// spread, who, the wider spread and who show it (unsettledHi,
// beyondHi).
type sayings struct{ within, unsettledHi, beyondHi, unsettled, beyond string }

// stepSay reads a step's comparison; gainSay reads the
// recommendation's gain after why it has no interval.
var (
	stepSay = sayings{
		within:      "Too few runs for an interval: %s differ by up to %s, as much as this difference of %s, so it may be run-to-run variation.",
		unsettledHi: "Too few runs for an interval: this difference of %s is more than the %s by which %s differ, but less than the %s by which %s differ, so it is not settled.",
		beyondHi:    "Too few runs for an interval: this difference of %s is more than both the %s by which %s differ and the %s by which %s differ, so run-to-run variation of either size does not explain it.",
		unsettled:   "Too few runs for an interval: %s differ by up to %s; this difference of %s is less than three times that, so it is not settled.",
		beyond:      "Too few runs for an interval: %s differ by up to %s; this difference of %s is %s times that, so run-to-run variation of that size does not explain it.",
	}
	gainSay = sayings{
		within:      "No interval (%s): %s differ by up to %s, as much as this gain of %s, so it may be run-to-run variation.",
		unsettledHi: "No interval (%s): this gain of %s is more than the %s by which %s differ, but less than the %s by which %s differ, so it is not settled.",
		beyondHi:    "No interval (%s): this gain of %s is more than both the %s by which %s differ and the %s by which %s differ, so run-to-run variation of either size does not explain it.",
		unsettled:   "No interval (%s): %s differ by up to %s; this gain of %s is less than three times that, so it is not settled.",
		beyond:      "No interval (%s): %s differ by up to %s; this gain of %s is %s times that, so run-to-run variation of that size does not explain it.",
	}
)

// say is the sentence of k for the reading r.
func (b *builder) say(k sayings, r reading, lead ...any) d.Text {
	who, gap, spread := b.named(r.who), pct(r.gap), pct(r.spread)
	m := func(key string, args ...any) d.Text { return d.M(key, slices.Concat(lead, args)...) }
	switch {
	case r.tier == withinNoise:
		return m(k.within, who, spread, gap)
	case r.hiWho != nil && r.tier == unsettled:
		return m(k.unsettledHi, gap, spread, who, pct(r.hi), r.hiWho)
	case r.hiWho != nil:
		return m(k.beyondHi, gap, spread, who, pct(r.hi), r.hiWho)
	case r.tier == unsettled:
		return m(k.unsettled, who, spread, gap)
	}
	return m(k.beyond, who, spread, gap, timesOf(r.gap/r.spread))
}

// upper is the wider spread a reading against the near-repeat runs
// must also face: the runs of one configuration that differ by more
// (the same command in two phases of the study). ok is false where the
// yardstick is a compared configuration's own runs, or none is wider.
func (b *builder) upper(who d.Text, spread float64) (float64, d.Text, bool) {
	if _, near := who.(nearRuns); !near {
		return 0, nil, false
	}
	w, name := b.widestSpread()
	if name == nil || round3(w) <= spread {
		return 0, nil, false
	}
	return round3(w), d.M("the runs of one configuration (%s)", name), true
}

// timesOf is a multiple as prose gives one: 5.9, 29; Russian adds
// «раз» or «раза» as the number asks.
func timesOf(x float64) multiple {
	if x >= 10 {
		return multiple(math.Round(x))
	}
	return multiple(math.Round(x*10) / 10)
}

type multiple float64

func (m multiple) In(p *i18n.Printer, f d.Format) string {
	n := d.Num{V: float64(m), Prec: -1}.In(p, f)
	if p.Lang() != "ru" {
		return n
	}
	i := int(m)
	if float64(i) != float64(m) || i%10 >= 2 && i%10 <= 4 && (i%100 < 12 || i%100 > 14) {
		return n + f.Esc(" раза")
	}
	return n + f.Esc(" раз")
}
