package llamacpp

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"
)

var builds sync.Map

// BuildInfo is what a llama-server binary says of its build (`--version`:
// version, build number, commit, compiler and target) on one line, or ""
// when it cannot say. Each binary is asked once per process.
func BuildInfo(binary string) string {
	if v, ok := builds.Load(binary); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, binary, "--version").CombinedOutput()
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "version:") || strings.HasPrefix(l, "built with") {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	info := strings.Join(keep, "; ")
	builds.Store(binary, info)
	return info
}
