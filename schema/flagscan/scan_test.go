package flagscan

import (
	"reflect"
	"strings"
	"testing"

	"servelab.dev/schema"
)

// The fixture is written for this test in the styles the engines use; it
// is not any engine's source.
const fixture = `
parser.add_argument("--max-num-seqs", type=int, default=None, help="at most (a, b)")
parser.add_argument("--tensor-parallel-size", "-tp", type=int)
parser.add_argument("--kv-cache-dtype", type=str, choices=["auto", "fp8"], help="x, y")
parser.add_argument("--enforce-eager", action="store_true")
group.add_argument("--enable-prefix-caching", action=argparse.BooleanOptionalAction)
group.add_argument("--block-size", **cache_kwargs["block_size"])
parser.add_argument("--tokenizer", type=nullable_str)
parser.add_argument("--reasoning-parser", choices=list(REGISTRY))
@click.option("--tensor_parallel_size", "--tp_size", type=int, default=1)
@click.option("--backend", type=click.Choice(["pytorch", "tensorrt"]), default="pytorch")
@click.option("--trust_remote_code", is_flag=True, default=False)
parser.add_argument("--gpu-memory-utilization", type=float, default=0.90)
parser.add_argument("--swap-space", type=float, default=EngineArgs.swap_space)
parser.add_argument("--schedule-policy", type=str, default='fcfs', choices=["fcfs", "lpm"])
`

func TestScan(t *testing.T) {
	r := Scan(fixture)
	got := map[string]schema.FlagSpec{}
	for _, f := range r.Flags {
		got[f.Name] = f
	}
	want := map[string]schema.FlagSpec{
		"max-num-seqs":           {Name: "max-num-seqs", Type: "int"},
		"tensor-parallel-size":   {Name: "tensor-parallel-size", Type: "int", Aliases: []string{"tp"}},
		"kv-cache-dtype":         {Name: "kv-cache-dtype", Type: "string", Choices: []string{"auto", "fp8"}},
		"enforce-eager":          {Name: "enforce-eager", Type: "bool", Default: "false"},
		"enable-prefix-caching":  {Name: "enable-prefix-caching", Type: "bool", Negation: "no-enable-prefix-caching"},
		"block-size":             {Name: "block-size", Type: "string"},
		"tokenizer":              {Name: "tokenizer", Type: "string"},
		"reasoning-parser":       {Name: "reasoning-parser", Type: "string"},
		"tensor_parallel_size":   {Name: "tensor_parallel_size", Type: "int", Aliases: []string{"tp_size"}, Default: "1"},
		"backend":                {Name: "backend", Type: "string", Choices: []string{"pytorch", "tensorrt"}, Default: "pytorch"},
		"trust_remote_code":      {Name: "trust_remote_code", Type: "bool", Default: "false"},
		"gpu-memory-utilization": {Name: "gpu-memory-utilization", Type: "float", Default: "0.90"},
		"swap-space":             {Name: "swap-space", Type: "float"},
		"schedule-policy":        {Name: "schedule-policy", Type: "string", Choices: []string{"fcfs", "lpm"}, Default: "fcfs"},
	}
	if !reflect.DeepEqual(got, want) {
		for k, w := range want {
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("%s: got %+v, want %+v", k, got[k], w)
			}
		}
	}
	for _, name := range []string{"block-size", "tokenizer", "reasoning-parser"} {
		if r.Unresolved[name] == "" {
			t.Errorf("%s should be reported unresolved", name)
		}
	}
	if !strings.Contains(r.Unresolved["block-size"], `cache_kwargs["block_size"]`) {
		t.Errorf("block-size: %q does not say where its type comes from", r.Unresolved["block-size"])
	}
	if len(r.Unresolved) != 3 {
		t.Errorf("unresolved: %v", r.Unresolved)
	}
}

// Only a literal default is kept: None is no default, an expression is
// reported with what it says, and so is a default from **kwargs.
func TestScanDefaults(t *testing.T) {
	r := Scan(fixture)
	want := map[string]string{"swap-space": "EngineArgs.swap_space", "block-size": `from **cache_kwargs["block_size"]`}
	if !reflect.DeepEqual(r.NoDefault, want) {
		t.Errorf("NoDefault = %v, want %v", r.NoDefault, want)
	}
}

func FuzzScan(f *testing.F) {
	f.Add(fixture)
	f.Add(`add_argument("--a", choices=["x"`)
	f.Fuzz(func(t *testing.T, src string) {
		for _, fl := range Scan(src).Flags {
			if fl.Name == "" || fl.Type == "" {
				t.Fatalf("flag %+v without a name or type", fl)
			}
		}
	})
}
