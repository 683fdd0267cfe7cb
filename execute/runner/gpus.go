package runner

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"servelab.dev/execute/event"
	"servelab.dev/execute/host"
	"servelab.dev/execute/record"
)

// freeMiB is the memory in use below which a GPU counts as free: a
// driver's context and a display take some, an engine takes gigabytes.
const freeMiB = 1024

// gpuWait is how long a launch waits for GPUs whose memory another
// process holds before it launches on the least used ones anyway (the
// memory may be a leak nothing will free; the engine then says whether
// it fits).
const gpuWait = 2 * time.Minute

// gpuPool hands launches the GPUs they need. It holds what this run has
// given out, and reads nvidia-smi per GPU for what other processes hold,
// so a launch starts on a free GPU while another is busy.
type gpuPool struct {
	ids      []string // --gpus, or the GPUs the engines see; in order of preference
	assign   bool     // --gpus given: each launch gets CUDA_VISIBLE_DEVICES
	query    func(context.Context) ([]host.GPU, error)
	emit     func(event.Event)
	patience time.Duration // gpuWait
	mu       sync.Mutex
	held     map[string]bool
	released chan struct{} // signalled on release
}

// newGPUPool is the pool of the GPUs given (--gpus), or, without them,
// of every GPU the engines see (CUDA_VISIBLE_DEVICES, else every one
// nvidia-smi lists): an engine left to see them all may use them all,
// so each launch waits until all are free, as it always did.
func newGPUPool(ctx context.Context, given []string, query func(context.Context) ([]host.GPU, error), emit func(event.Event)) *gpuPool {
	p := &gpuPool{ids: given, assign: len(given) > 0, query: query, emit: emit, patience: gpuWait, held: map[string]bool{}, released: make(chan struct{}, 1)}
	if p.assign {
		return p
	}
	if v, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES"); ok {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				p.ids = append(p.ids, id)
			}
		}
		return p
	}
	gs, _ := query(ctx)
	for _, g := range gs {
		p.ids = append(p.ids, strconv.Itoa(g.Index))
	}
	return p
}

// acquire takes need GPUs that this run does not hold, preferring those
// whose memory is free, in the pool's order; it waits for the run's own
// launches to give GPUs back, and up to gpuWait for other processes to
// free theirs. It returns the GPUs' ids and what nvidia-smi said of them.
func (p *gpuPool) acquire(ctx context.Context, need int) ([]string, []record.GPU, error) {
	var since time.Time
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		unheld := p.unheld()
		if len(unheld) < need {
			if err := p.sleep(ctx, time.Hour); err != nil {
				return nil, nil, err
			}
			continue
		}
		smi, err := p.query(ctx)
		if err != nil { // no nvidia-smi (or it failed): nothing to wait for
			return p.take(unheld[:need]), host.Use(unheld[:need], smi), nil
		}
		free, busy := split(unheld, smi)
		switch {
		case len(free) >= need:
			return p.take(free[:need]), host.Use(free[:need], smi), nil
		case since.IsZero():
			since = time.Now()
			p.emit(event.Event{Kind: event.GPUWait, GPUs: busy})
		case time.Since(since) > p.patience:
			ids := append(free, leastUsed(busy)...)[:need]
			return p.take(ids), host.Use(ids, smi), nil
		}
		if err := p.sleep(ctx, 500*time.Millisecond); err != nil {
			return nil, nil, err
		}
	}
}

// split sorts ids into those with free memory and the busy ones, with
// what each busy one has in use. A GPU nvidia-smi does not list (a MIG
// instance, a UUID it does not show) counts as free: there is nothing to
// wait for.
func split(ids []string, smi []host.GPU) (free []string, busy []event.GPU) {
	for _, id := range ids {
		g, ok := host.Find(smi, id)
		if !ok || g.UsedMiB < freeMiB {
			free = append(free, id)
		} else {
			busy = append(busy, event.GPU{ID: id, UsedMiB: g.UsedMiB})
		}
	}
	return free, busy
}

func leastUsed(busy []event.GPU) []string {
	b := append([]event.GPU(nil), busy...)
	for i := 1; i < len(b); i++ { // few GPUs: insertion sort, stable
		for j := i; j > 0 && b[j].UsedMiB < b[j-1].UsedMiB; j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
	ids := make([]string, len(b))
	for i, g := range b {
		ids[i] = g.ID
	}
	return ids
}

func (p *gpuPool) unheld() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, id := range p.ids {
		if !p.held[id] {
			out = append(out, id)
		}
	}
	return out
}

func (p *gpuPool) take(ids []string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		p.held[id] = true
	}
	return ids
}

// release gives a launch's GPUs back.
func (p *gpuPool) release(ids []string) {
	p.mu.Lock()
	for _, id := range ids {
		delete(p.held, id)
	}
	p.mu.Unlock()
	select {
	case p.released <- struct{}{}:
	default:
	}
}

// sleep waits for d, a release, or the end of ctx.
func (p *gpuPool) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.released:
	case <-t.C:
	}
	return nil
}
