package host

import (
	"slices"
	"testing"

	"servelab.dev/execute/record"
)

// nvidia-smi's CSV is read field by field; a row it cannot read (a
// "[N/A]" memory) is left out rather than read as zero.
func TestParseCSV(t *testing.T) {
	got := parseCSV("0, GPU-a, NVIDIA H200, 550.54.15, 143771, 30000\n1, GPU-b, NVIDIA H200, 550.54.15, [N/A], [N/A]\n2, GPU-c, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 3\n")
	want := []GPU{{Index: 0, UUID: "GPU-a", Name: "NVIDIA H200", Driver: "550.54.15", MemoryMiB: 143771, UsedMiB: 30000},
		{Index: 2, UUID: "GPU-c", Name: "NVIDIA H100 80GB HBM3", Driver: "550.54.15", MemoryMiB: 81559, UsedMiB: 3}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v", got)
	}
}

// A GPU is found by index or UUID; one nvidia-smi does not list keeps
// what its id says.
func TestUse(t *testing.T) {
	smi := []GPU{{Index: 0, UUID: "GPU-a", Name: "A", MemoryMiB: 10, UsedMiB: 1}, {Index: 1, UUID: "GPU-b", Name: "B", MemoryMiB: 20}}
	got := Use([]string{"GPU-b", "0", "7", "MIG-x"}, smi)
	want := []record.GPU{{Index: 1, UUID: "GPU-b", Name: "B", MemoryMiB: 20}, {Index: 0, UUID: "GPU-a", Name: "A", MemoryMiB: 10, UsedMiB: 1},
		{Index: 7}, {Index: -1, UUID: "MIG-x"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v", got)
	}
	var p record.Provenance
	OnGPUs(&p, got)
	if p.GPU != "B" || p.GPUMemoryMiB != 20 || len(p.GPUs) != 4 {
		t.Errorf("provenance %+v", p)
	}
}

func TestSameModel(t *testing.T) {
	for _, c := range []struct {
		want, smi string
		same      bool
	}{
		{"NVIDIA H200", "NVIDIA H200", true},
		{"NVIDIA H200", "NVIDIA H200 NVL", true},
		{"NVIDIA H100 80GB HBM3", "nvidia h100 80gb hbm3", true},
		{"NVIDIA H100", "NVIDIA H100 80GB HBM3", true},
		{"NVIDIA H200", "NVIDIA H100 80GB HBM3", false},
		{"NVIDIA H200", "NVIDIA H20", false},
		{"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", false},
		{"", "NVIDIA H100", false},
	} {
		if got := SameModel(c.want, c.smi); got != c.same {
			t.Errorf("SameModel(%q, %q) = %v", c.want, c.smi, got)
		}
	}
}
