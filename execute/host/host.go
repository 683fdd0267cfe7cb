// Package host reads the facts a measured record carries about the
// machine: host name and, when nvidia-smi is present, the GPU's name,
// driver and memory.
package host

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// GPU is what nvidia-smi says of the first GPU.
type GPU struct {
	Name      string
	Driver    string
	MemoryMiB int
}

// Name is the host name ("" when unknown).
func Name() string {
	h, _ := os.Hostname()
	return h
}

// GPUs lists the GPUs nvidia-smi sees; none without nvidia-smi.
func GPUs() []GPU {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil
	}
	var gpus []GPU
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		mem, _ := strconv.Atoi(strings.TrimSpace(f[2]))
		gpus = append(gpus, GPU{Name: strings.TrimSpace(f[0]), Driver: strings.TrimSpace(f[1]), MemoryMiB: mem})
	}
	return gpus
}
