package host

import (
	"strings"
	"testing"
)

// FuzzGPUs: a --gpus list is accepted only as distinct indexes below
// the GPUs present, or UUIDs.
func FuzzGPUs(f *testing.F) {
	for _, s := range []string{"0,1", "0,0", "GPU-8f3c,1", "MIG-1,MIG-1", "1,-1", "0,,1", "07", " 3"} {
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, list string, present int) {
		present = min(max(present, 0), 1<<20)
		ids, err := ParseGPUs(list, present)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%q accepted twice", id)
			}
			seen[id] = true
			if strings.HasPrefix(id, "GPU-") || strings.HasPrefix(id, "MIG-") {
				continue
			}
			n := 0
			for _, c := range id {
				if c < '0' || c > '9' {
					t.Fatalf("%q accepted as an index", id)
				}
				n = n*10 + int(c-'0')
			}
			if present > 0 && n >= present {
				t.Fatalf("GPU %d accepted with %d present", n, present)
			}
		}
	})
}
