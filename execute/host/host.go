// Package host reads the facts a measured record carries about the
// machine: host name and, when nvidia-smi is present, the GPU's name,
// driver and memory.
package host

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"servelab.dev/execute/record"
)

// GPU is what nvidia-smi says of the first GPU.
type GPU struct {
	Name      string
	Driver    string
	MemoryMiB int
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
// while servelab runs, and every record asks.
func GPUs() []GPU {
	gpusOnce.Do(func() { gpus = queryGPUs() })
	return gpus
}

var (
	gpusOnce sync.Once
	gpus     []GPU
)

// Provenance is the provenance of a run on this machine: its kind, host,
// first GPU, times and the servelab version.
func Provenance(kind string, began, ended time.Time, version string) record.Provenance {
	p := record.Provenance{Kind: kind, Host: Name(), Start: began.UTC().Format(time.RFC3339),
		End: ended.UTC().Format(time.RFC3339), Servelab: version}
	if g := GPUs(); len(g) > 0 {
		p.GPU, p.Driver, p.GPUMemoryMiB, p.CUDA = g[0].Name, g[0].Driver, g[0].MemoryMiB, g[0].CUDA
	}
	return p
}

func queryGPUs() []GPU {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil
	}
	cuda := cudaVersion(ctx)
	var gpus []GPU
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		mem, _ := strconv.Atoi(strings.TrimSpace(f[2]))
		gpus = append(gpus, GPU{Name: strings.TrimSpace(f[0]), Driver: strings.TrimSpace(f[1]), MemoryMiB: mem, CUDA: cuda})
	}
	return gpus
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
