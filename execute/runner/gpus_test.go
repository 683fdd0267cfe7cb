package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"servelab.dev/execute/event"
	"servelab.dev/execute/host"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
)

// fakeSMI answers nvidia-smi's queries for two GPUs of the study's model;
// another process holds 30000 MiB on GPU 0.
const fakeSMI = `#!/bin/sh
case "$*" in
*--query-gpu=index,uuid,name,driver_version,memory.total,memory.used*)
	echo "0, GPU-00000000-aaaa-bbbb-cccc-000000000000, NVIDIA H200, 550.54.15, 143771, 30000"
	echo "1, GPU-11111111-aaaa-bbbb-cccc-111111111111, NVIDIA H200, 550.54.15, 143771, 5"
	;;
*)
	echo "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |"
	;;
esac
`

// With GPU 0 busy (another process's memory) and GPU 1 free, --gpus 0,1
// starts every launch on GPU 1 instead of waiting for GPU 0, says why
// it waits, and the records name GPU 1, its model and memory: not GPU 0,
// whose model was all a record used to carry. nvidia-smi is the real
// seam: a script on PATH.
func TestTrialStartsOnTheFreeGPU(t *testing.T) { synctest.Test(t, testTrialStartsOnTheFreeGPU) }

func testTrialStartsOnTheFreeGPU(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(fakeSMI), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s := study(t, fourProfiles)
	dir := t.TempDir()
	var mu sync.Mutex
	var evs []event.Event
	sink := event.Func(func(e event.Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() })
	sum, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, Launcher: inProcessSim, GPUs: []string{"0", "1"}, Events: sink})
	if err != nil || !sum.Decided || sum.Launches != 2 {
		t.Fatalf("%+v %v", sum, err)
	}
	var waited bool
	for _, e := range evs {
		switch e.Kind {
		case event.GPUWait:
			waited = waited || slices.Equal(e.GPUs, []event.GPU{{ID: "0", UsedMiB: 30000}})
		case event.Launching:
			if !slices.Equal(e.Launch.GPUs, []string{"1"}) {
				t.Errorf("launch on GPUs %v, want [1]", e.Launch.GPUs)
			}
		}
	}
	if !waited {
		t.Error("no gpu-wait event naming GPU 0's 30000 MiB")
	}
	runs, err := store.Open(dir).OK()
	if err != nil || len(runs) == 0 {
		t.Fatal(runs, err)
	}
	want := []record.GPU{{Index: 1, UUID: "GPU-11111111-aaaa-bbbb-cccc-111111111111", Name: "NVIDIA H200", MemoryMiB: 143771, UsedMiB: 5}}
	for _, rs := range runs {
		for _, r := range rs {
			p := r.Provenance
			if !slices.Equal(p.GPUs, want) || p.GPU != "NVIDIA H200" || p.GPUMemoryMiB != 143771 {
				b, _ := json.Marshal(p)
				t.Errorf("provenance %s", b)
			}
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "engine.log"))
	for _, f := range logs {
		if b, _ := os.ReadFile(f); !strings.Contains(string(b), `CUDA_VISIBLE_DEVICES="1"`) {
			t.Errorf("%s: the engine did not get GPU 1", f)
		}
	}
}

// fakeGPUs is a GPU reader whose memory in use the test changes.
type fakeGPUs struct {
	mu   sync.Mutex
	used map[int]int
}

func (f *fakeGPUs) query(context.Context) ([]host.GPU, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []host.GPU
	for i := range 4 {
		out = append(out, host.GPU{Index: i, Name: "G", MemoryMiB: 1000 * (i + 1), UsedMiB: f.used[i]})
	}
	return out, nil
}

func (f *fakeGPUs) set(i, mib int) { f.mu.Lock(); f.used[i] = mib; f.mu.Unlock() }

// The pool gives the GPUs a launch needs among the free ones, in the
// order given; waits for the run's own GPUs to come back and for busy
// ones to free up; and, past its patience, takes the least used.
func TestGPUPool(t *testing.T) {
	ctx := context.Background()
	f := &fakeGPUs{used: map[int]int{0: 20000, 2: 8000}}
	var waits []event.Event
	p := newGPUPool(ctx, []string{"0", "1", "2", "3"}, f.query, func(e event.Event) { waits = append(waits, e) })
	a, used, err := p.acquire(ctx, 2)
	if err != nil || !slices.Equal(a, []string{"1", "3"}) || used[0].Index != 1 || used[1].MemoryMiB != 4000 {
		t.Fatalf("first launch got %v %+v %v", a, used, err)
	}
	got := make(chan []string)
	go func() { b, _, _ := p.acquire(ctx, 1); got <- b }()
	time.Sleep(100 * time.Millisecond)
	f.set(2, 0)
	select {
	case b := <-got:
		if !slices.Equal(b, []string{"2"}) {
			t.Errorf("got %v once GPU 2 freed, want [2]", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("GPU 2 freed, and the launch still waits")
	}
	if len(waits) != 1 || !slices.Equal(waits[0].GPUs, []event.GPU{{ID: "0", UsedMiB: 20000}, {ID: "2", UsedMiB: 8000}}) {
		t.Errorf("gpu-wait events %+v", waits)
	}
	go func() { b, _, _ := p.acquire(ctx, 2); got <- b }() // only GPU 0 is left: waits for the run's own
	time.Sleep(100 * time.Millisecond)
	p.release(a)
	if b := <-got; !slices.Equal(b, []string{"1", "3"}) {
		t.Errorf("got %v after the release, want [1 3]", b)
	}
	p.release([]string{"2", "1", "3"})
	f.set(1, 5000)
	f.set(3, 3000)
	p.patience = 50 * time.Millisecond
	if b, _, _ := p.acquire(ctx, 3); !slices.Equal(b, []string{"2", "3", "1"}) {
		t.Errorf("past its patience the pool took %v, want the free one, then the least used [2 3 1]", b)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := p.acquire(cctx, 1); err == nil {
		t.Error("acquire ignores an interrupt")
	}
}

// Without --gpus the pool is every GPU the engines see: each launch
// waits for all of them and gets no CUDA_VISIBLE_DEVICES of its own.
func TestGPUPoolWithoutGPUs(t *testing.T) {
	ctx := context.Background()
	f := &fakeGPUs{used: map[int]int{}}
	t.Setenv("CUDA_VISIBLE_DEVICES", "2,3")
	p := newGPUPool(ctx, nil, f.query, func(event.Event) {})
	if p.assign || !slices.Equal(p.ids, []string{"2", "3"}) {
		t.Errorf("pool %v (assign %v), want the visible GPUs 2,3", p.ids, p.assign)
	}
	os.Unsetenv("CUDA_VISIBLE_DEVICES")
	if p := newGPUPool(ctx, nil, f.query, func(event.Event) {}); !slices.Equal(p.ids, []string{"0", "1", "2", "3"}) {
		t.Errorf("pool %v, want every GPU nvidia-smi lists", p.ids)
	}
}

// fourFree answers nvidia-smi's queries for four idle GPUs.
const fourFree = `#!/bin/sh
case "$*" in
*--query-gpu=index,uuid,name,driver_version,memory.total,memory.used*)
	for i in 0 1 2 3; do echo "$i, GPU-$i, NVIDIA H200, 580.159.04, 143771, 1"; done
	;;
*)
	echo "| NVIDIA-SMI 580.159.04    Driver Version: 580.159.04    CUDA Version: 13.0 |"
	;;
esac
`

// With four free GPUs the two configurations of a select step launch at
// once, each on its own GPU: the records name two different GPUs, and
// no two runs that overlapped in time shared one (record.SharedGPUs,
// the check the multi-GPU study's committed records must pass too).
func TestParallelLaunchesShareNoGPU(t *testing.T) { synctest.Test(t, testParallelLaunchesShareNoGPU) }

func testParallelLaunchesShareNoGPU(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(fourFree), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	var mu sync.Mutex
	launched := map[string][]string{}
	sink := event.Func(func(e event.Event) {
		if e.Kind == event.Launching {
			mu.Lock()
			launched[e.Launch.Command] = e.Launch.GPUs
			mu.Unlock()
		}
	})
	sum, err := Run(context.Background(), study(t, fourProfiles), Options{Results: dir, Simulate: true, Launcher: inProcessSim, GPUs: []string{"0", "1", "2", "3"}, Events: sink})
	if err != nil || !sum.Decided || sum.Launches != 2 {
		t.Fatalf("%+v %v", sum, err)
	}
	runs, err := store.Open(dir).OK()
	if err != nil {
		t.Fatal(err)
	}
	var all []*record.Record
	used := map[string]bool{}
	for _, rs := range runs {
		for _, r := range rs {
			all = append(all, r)
			if len(r.Provenance.GPUs) != 1 {
				t.Fatalf("%s: GPUs %+v, want one", r.Key, r.Provenance.GPUs)
			}
			used[r.Provenance.GPUs[0].UUID] = true
		}
	}
	if len(used) != 2 || len(launched) != 2 {
		t.Errorf("two configurations used GPUs %v (launches %v), want two different ones", used, launched)
	}
	if clash := record.SharedGPUs(all); len(clash) > 0 {
		t.Errorf("runs shared a GPU: %v", clash)
	}
}
