package decide

import (
	"slices"

	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// pooledRun is one run of a configuration at a load, from whichever
// trial (repeat, step or validation) recorded it.
type pooledRun struct {
	key    string
	repeat int
	rec    *record.Record
}

// loadKey is t's configuration at its load; its own key when the trial
// has no spec.
func loadKey(t *plan.Trial) string {
	if t.Spec == nil {
		return t.Key
	}
	return t.Spec.LoadKey()
}

// pooled is every run of t's configuration at t's load: one figure per
// configuration and load, wherever the study planned it. Runs come in
// key order, each trial's in the order they were stored.
func (d *decider) pooled(t *plan.Trial) []pooledRun {
	d.indexLoads()
	keys := d.byLoad[loadKey(t)]
	if !slices.Contains(keys, t.Key) {
		keys = []string{t.Key}
	}
	var out []pooledRun
	for _, k := range keys {
		for _, r := range d.runs[k] {
			out = append(out, pooledRun{key: k, repeat: r.Trial.Repeat, rec: r})
		}
	}
	return out
}

// pooledRecords is every run of the configuration and load that trial
// key ran, as pooled gives them; nil while key has no run of its own.
func (d *decider) pooledRecords(key string) []*record.Record {
	rs := d.runs[key]
	if len(rs) == 0 || rs[0].Key == "" || rs[0].Trial.Key() != rs[0].Key {
		return rs // a record whose spec does not give its key stands alone
	}
	d.indexLoads()
	keys := d.byLoad[rs[0].Trial.LoadKey()]
	if !slices.Contains(keys, key) {
		return rs
	}
	var out []*record.Record
	for _, k := range keys {
		out = append(out, d.runs[k]...)
	}
	return out
}

// indexLoads groups the recorded trials by configuration and load.
func (d *decider) indexLoads() {
	if d.byLoad == nil {
		d.byLoad = map[string][]string{}
		for k, rs := range d.runs {
			if len(rs) == 0 {
				continue
			}
			lk := rs[0].Trial.LoadKey()
			if rs[0].Key != "" && rs[0].Trial.Key() != rs[0].Key {
				lk = k // a record whose spec does not give its key stands alone
			}
			d.byLoad[lk] = append(d.byLoad[lk], k)
		}
		for _, ks := range d.byLoad {
			slices.Sort(ks)
		}
	}
}

// as is t renamed for one of its pooled runs, so messages name the run.
func (pr pooledRun) as(t *plan.Trial) *plan.Trial {
	c := *t
	c.Key, c.Repeat = pr.key, pr.repeat
	return &c
}
