// Package host reads the facts a measured record carries about the
// machine: host name and, when nvidia-smi is present, each GPU's index,
// name, driver and memory, and how much of its memory is in use now.
package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"servelab.dev/execute/record"
)

// GPU is what nvidia-smi says of one GPU.
type GPU struct {
	Index     int
	UUID      string
	Name      string
	Driver    string
	MemoryMiB int
	// UsedMiB is the memory in use when nvidia-smi was read.
	UsedMiB int
	// CUDA is the CUDA version the driver supports.
	CUDA string
}

// Name is the host name ("" when unknown).
func Name() string {
	h, _ := os.Hostname()
	return h
}

// GPUs lists the GPUs nvidia-smi sees; none without nvidia-smi. The
// answer is read once per process: names, drivers and sizes do not change
// while servelab runs, and every record asks. (Memory in use does: Query
// reads it now.)
func GPUs() []GPU {
	gpusOnce.Do(func() { gpus, _ = Query(context.Background()) })
	return gpus
}

var (
	gpusOnce sync.Once
	gpus     []GPU
)

// ErrNoSMI means nvidia-smi is not on PATH: no GPU can be read.
var ErrNoSMI = errors.New("nvidia-smi not found")

// smiFields is what Query asks nvidia-smi for, in this order.
const smiFields = "index,uuid,name,driver_version,memory.total,memory.used"

// Query reads every GPU nvidia-smi lists, with the memory in use now.
// nvidia-smi is found on PATH each time: the one seam tests replace
// (a script that prints the same CSV).
func Query(ctx context.Context) ([]GPU, error) {
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		return nil, ErrNoSMI
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nvidia-smi", "--query-gpu="+smiFields, "--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil, err
	}
	gpus := parseCSV(string(out))
	if len(gpus) > 0 {
		cuda := cudaVersion(ctx)
		for i := range gpus {
			gpus[i].CUDA = cuda
		}
	}
	return gpus, nil
}

// parseCSV reads nvidia-smi's answer to smiFields; a line it cannot
// read (a field "[N/A]", a MIG host's odd row) is left out.
func parseCSV(out string) []GPU {
	var gpus []GPU
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 6 {
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		idx, err1 := strconv.Atoi(f[0])
		total, err2 := strconv.Atoi(f[4])
		used, err3 := strconv.Atoi(f[5])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		gpus = append(gpus, GPU{Index: idx, UUID: f[1], Name: f[2], Driver: f[3], MemoryMiB: total, UsedMiB: used})
	}
	return gpus
}

// Find is the GPU that id names (an index or a UUID, as
// CUDA_VISIBLE_DEVICES takes them) among gpus.
func Find(gpus []GPU, id string) (GPU, bool) {
	for _, g := range gpus {
		if strconv.Itoa(g.Index) == id || g.UUID == id {
			return g, true
		}
	}
	return GPU{}, false
}

// Provenance is the provenance of a run on this machine: its kind, host,
// first GPU, times and the servelab version. OnGPUs names the GPUs the
// run's engine was given.
func Provenance(kind string, began, ended time.Time, version string) record.Provenance {
	p := record.Provenance{Kind: kind, Host: Name(), Start: began.UTC().Format(time.RFC3339),
		End: ended.UTC().Format(time.RFC3339), Servelab: version}
	if g := GPUs(); len(g) > 0 {
		p.GPU, p.Driver, p.GPUMemoryMiB, p.CUDA = g[0].Name, g[0].Driver, g[0].MemoryMiB, g[0].CUDA
	}
	return p
}

// OnGPUs records in p the GPUs a run's engine was given; the record's
// single GPU fields then describe the first of them rather than GPU 0.
func OnGPUs(p *record.Provenance, used []record.GPU) {
	p.GPUs = used
	if len(used) > 0 && used[0].Name != "" {
		p.GPU, p.GPUMemoryMiB = used[0].Name, used[0].MemoryMiB
	}
}

// Use describes the GPUs ids name, as nvidia-smi read them (gpus) when
// the engine was launched; a GPU nvidia-smi does not list keeps what
// its id says (an index, or a UUID with index -1).
func Use(ids []string, gpus []GPU) []record.GPU {
	var out []record.GPU
	for _, id := range ids {
		if g, ok := Find(gpus, id); ok {
			out = append(out, record.GPU{Index: g.Index, UUID: g.UUID, Name: g.Name, MemoryMiB: g.MemoryMiB, UsedMiB: g.UsedMiB})
			continue
		}
		u := record.GPU{Index: -1}
		if n, err := strconv.Atoi(id); err == nil {
			u.Index = n
		} else {
			u.UUID = id
		}
		out = append(out, u)
	}
	return out
}

var cudaRe = regexp.MustCompile(`CUDA Version:\s*([0-9.]+)`)

// cudaVersion reads the CUDA version from nvidia-smi's header: no
// --query-gpu field holds it.
func cudaVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "nvidia-smi").Output()
	if err != nil {
		return ""
	}
	if m := cudaRe.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}

// SameModel reports whether nvidia-smi's name of a GPU (smi) is the GPU
// a study names (want): equal, or one the other's leading words ("NVIDIA
// H100" and "NVIDIA H100 80GB HBM3"), ignoring case; "NVIDIA H20" is not
// "NVIDIA H200".
func SameModel(want, smi string) bool {
	a, b := strings.Fields(strings.ToLower(want)), strings.Fields(strings.ToLower(smi))
	n := min(len(a), len(b))
	return n > 0 && slices.Equal(a[:n], b[:n])
}

// ParseGPUs reads a list of GPUs (CUDA_VISIBLE_DEVICES's form): indexes
// or GPU-/MIG- UUIDs, each once. present is how many GPUs nvidia-smi
// lists (0 when it cannot say): an index beyond them is refused.
func ParseGPUs(list string, present int) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if strings.HasPrefix(id, "GPU-") || strings.HasPrefix(id, "MIG-") {
			// a UUID: nvidia-smi -L lists them
		} else if n, err := strconv.Atoi(id); err != nil || n < 0 || strconv.Itoa(n) != id {
			return nil, fmt.Errorf("%q is not a GPU index (0, 1, ...) or UUID (GPU-..., MIG-...)", id)
		} else if present > 0 && n >= present {
			return nil, fmt.Errorf("GPU %d does not exist (nvidia-smi lists %d: 0 to %d)", n, present, present-1)
		}
		if seen[id] {
			return nil, fmt.Errorf("GPU %s is listed twice; give each GPU once (e.g. --gpus 0,1)", id)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}
