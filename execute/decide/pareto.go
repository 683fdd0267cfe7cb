package decide

import (
	"fmt"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Point is one load point of one option in a step's Pareto view: output
// throughput per GPU against the throughput one request sees (tok/s per
// user, the axes peers such as InferenceMAX plot), with a latency
// statistic beside them.
type Point struct {
	Variant string `json:"variant"`
	Load    string `json:"load"` // the profile, or a search probe's rate
	// Profile is the load the point belongs to: points are compared only
	// with others of the same profile (a search's probes are one load).
	Profile string `json:"profile"`
	// Key is the trial of the point's first run (its repeat 0), for
	// readers that look up what the lint says of its figures.
	Key        string  `json:"key"`
	Throughput float64 `json:"throughput"`
	// PerUser is output tokens per second per request, as its user sees
	// them: mean output tokens per request ÷ mean request latency (s),
	// the wait for the first token included.
	PerUser   float64 `json:"perUser"`
	Latency   float64 `json:"latency"`
	Dominated bool    `json:"dominated"`
}

// paretoMetric is the latency the Pareto view lists beside its axes:
// the objective's when it is a latency, else the SLO's first latency
// bound, else P99 request latency.
func paretoMetric(s *schema.Study) string {
	if Unit(s.Objective.Metric) == "ms" {
		return s.Objective.Metric
	}
	for _, b := range s.Objective.Constraints {
		if Unit(b.Metric) == "ms" {
			return b.Metric
		}
	}
	return "latency.p99"
}

// pareto collects every option's load points (all profiles and probes
// of the step) and marks those another point of the same profile beats
// on both axes: comparing a point with one of another workload says
// nothing about either. It returns nil when no option was measured at
// two loads: with one load each, the step's chart already says
// everything.
func (d *decider) pareto(opts map[string][]*plan.Trial, order []string) []Point {
	var pts []Point
	multi := false
	for _, v := range order {
		loads := 0
		for _, t := range opts[v] {
			if t.Repeat > 0 {
				continue // repeats pool into repeat 0's point
			}
			if p, ok := d.loadPoint(v, t, opts[v]); ok {
				pts = append(pts, p)
				loads++
			}
		}
		multi = multi || loads > 1
	}
	if !multi {
		return nil
	}
	for i := range pts {
		pts[i].Dominated = dominated(pts[i], pts)
	}
	return pts
}

// loadPoint is option v at t's load, over t's runs and its repeats'.
func (d *decider) loadPoint(v string, t *plan.Trial, trials []*plan.Trial) (Point, bool) {
	metric := paretoMetric(d.s)
	gpus := float64(max(1, d.s.Hardware.Count))
	var thr, user, lat []float64
	// The runs the step's comparison pools (earlier trials of the same
	// configuration and load too), so the point is the figure the page
	// gives that option everywhere else.
	seen := map[string]bool{}
	for _, u := range trials {
		if u.Profile != t.Profile || u.Rate != t.Rate || seen[loadKey(u)] {
			continue
		}
		seen[loadKey(u)] = true
		for _, pr := range d.pooled(u) {
			r := pr.rec
			x, _, ok1 := metricOf(r, "output_throughput")
			y, ok2 := d.runValue(r, metric)
			z, ok3 := perUserOf(r)
			if ok1 && ok2 && ok3 {
				thr, lat, user = append(thr, x/gpus), append(lat, y), append(user, z)
			}
		}
	}
	if len(thr) == 0 {
		return Point{}, false
	}
	load := t.Profile
	if t.Rate > 0 {
		load = fmt.Sprintf("%s@%g", t.Profile, t.Rate)
	}
	return Point{Variant: v, Load: load, Profile: t.Profile, Key: t.Key, Throughput: mean(thr), PerUser: mean(user), Latency: mean(lat)}, true
}

// perUserOf is a run's output tokens per second per request: its mean
// output tokens per request over its mean request latency (measured, or
// derived where the source has none).
func perUserOf(r *record.Record) (float64, bool) {
	out, known := record.Count(r.Metrics.OutputTokens)
	lat, _, ok := metricOf(r, "latency.mean")
	if !known || !ok || lat <= 0 || r.Metrics.Completed == 0 {
		return 0, false
	}
	return float64(out) / float64(r.Metrics.Completed) / (lat / 1000), true
}

// dominated reports whether another point of p's profile has at least
// its throughput per GPU and per user, and more of one.
func dominated(p Point, pts []Point) bool {
	for _, q := range pts {
		if q.Profile == p.Profile && q.Throughput >= p.Throughput && q.PerUser >= p.PerUser && (q.Throughput > p.Throughput || q.PerUser > p.PerUser) {
			return true
		}
	}
	return false
}
