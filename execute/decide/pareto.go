package decide

import (
	"fmt"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Point is one load point of one option in a step's Pareto view:
// output throughput per GPU against a latency statistic.
type Point struct {
	Variant    string  `json:"variant"`
	Load       string  `json:"load"` // the profile, or a search probe's rate
	Throughput float64 `json:"throughput"`
	Latency    float64 `json:"latency"`
	Dominated  bool    `json:"dominated"`
}

// paretoMetric is the latency the Pareto view plots: the objective's
// when it is a latency, else the SLO's first latency bound, else P99
// request latency.
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
// of the step) and marks those another point beats on both axes. It
// returns nil when no option was measured at two loads: with one load
// each, the step's chart already says everything.
func (d *decider) pareto(opts map[string][]*plan.Trial, order []string) []Point {
	metric := paretoMetric(d.s)
	gpus := float64(max(1, d.s.Hardware.Count))
	var pts []Point
	multi := false
	for _, v := range order {
		loads := 0
		for _, t := range opts[v] {
			var thr, lat []float64
			for _, r := range d.runs[t.Key] {
				x, _, ok1 := metricOf(r.Metrics, "output_throughput")
				y, ok2 := d.runValue(r, metric)
				if ok1 && ok2 {
					thr, lat = append(thr, x/gpus), append(lat, y)
				}
			}
			if len(thr) == 0 || t.Repeat > 0 {
				continue // repeats pool into repeat 0's point below
			}
			for _, u := range opts[v] {
				if u != t && u.Profile == t.Profile && u.Rate == t.Rate {
					for _, r := range d.runs[u.Key] {
						x, _, ok1 := metricOf(r.Metrics, "output_throughput")
						y, ok2 := d.runValue(r, metric)
						if ok1 && ok2 {
							thr, lat = append(thr, x/gpus), append(lat, y)
						}
					}
				}
			}
			load := t.Profile
			if t.Rate > 0 {
				load = fmt.Sprintf("%s@%g", t.Profile, t.Rate)
			}
			pts = append(pts, Point{Variant: v, Load: load, Throughput: mean(thr), Latency: mean(lat)})
			loads++
		}
		multi = multi || loads > 1
	}
	if !multi {
		return nil
	}
	for i := range pts {
		for j := range pts {
			p, q := pts[i], pts[j]
			if i != j && q.Throughput >= p.Throughput && q.Latency <= p.Latency && (q.Throughput > p.Throughput || q.Latency < p.Latency) {
				pts[i].Dominated = true
				break
			}
		}
	}
	return pts
}
