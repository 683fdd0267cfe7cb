package llamacpp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"servelab.dev/schema"
)

// An excerpt in arg.cpp's style: every kind of option the parser meets.
const excerpt = `
    add_opt(common_arg(
        {"-c", "--ctx-size"}, "N",
        string_format("size of the prompt context (default: %d)", params.n_ctx),
        [](common_params & params, int value) {
            params.n_ctx = value;
        }
    ).set_env("LLAMA_ARG_CTX_SIZE"));
    add_opt(common_arg({ "-fa", "--flash-attn" }, "[on|off|auto]",
                       "set Flash Attention use", // a comment with a "quote" and }
                       [](common_params & params, const std::string & value) {
                           params.x = value;
                       }).set_env("LLAMA_ARG_FLASH_ATTN"));
    add_opt(common_arg(
        {"-kvu", "--kv-unified"},
        {"-no-kvu", "--no-kv-unified"},
        "use single unified KV buffer",
        [](common_params & params, bool value) {
            params.kv_unified = value;
        }
    ).set_examples({LLAMA_EXAMPLE_SERVER, LLAMA_EXAMPLE_BENCH}));
    add_opt(common_arg(
        {"--temp"}, "N",
        "temperature",
        [](common_params & params, const std::string & value) {
            params.sampling.temp = std::stof(value);
        }
    ).set_sparam());
    add_opt(common_arg(
        {"-ngl", "--gpu-layers", "--n-gpu-layers"}, "N",
        "layers on the GPU",
        [](common_params & params, const std::string & value) {
            params.n_gpu_layers = std::stoi(value);
        }
    ));
    add_opt(common_arg(
        {"--perplexity"},
        "compute perplexity",
        [](common_params & params) {
            params.ppl = true;
        }
    ).set_examples({LLAMA_EXAMPLE_PERPLEXITY}));
    add_opt(common_arg(
        {"--no-server-thing"},
        "not for the server",
        [](common_params & /*params*/) {}
    ).set_excludes({LLAMA_EXAMPLE_SERVER}));
    add_opt(common_arg(
        {"--mmproj"}, "FILE",
        "projector",
        [](common_params & params, const std::string & value) {}
    ).set_examples(mmproj_examples));
`

func TestServerOptions(t *testing.T) {
	src := "auto mmproj_examples = {LLAMA_EXAMPLE_MTMD, LLAMA_EXAMPLE_SERVER};\n" + strings.Repeat(excerpt, 1)
	// ServerOptions refuses a file with fewer than 50 options; pad with
	// distinct switches so the excerpt passes as a whole arg.cpp.
	for i := 0; i < 50; i++ {
		src += "add_opt(common_arg({\"--pad" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "\"}, \"x\", [](common_params & params) {}));\n"
	}
	opts, err := ServerOptions([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Option{}
	for _, o := range opts {
		got[o.Names[0]] = o
	}
	check := func(name, kind string, values ...string) {
		t.Helper()
		o, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
			return
		}
		if o.Kind != kind || strings.Join(o.Values, "|") != strings.Join(values, "|") {
			t.Errorf("%s: kind %s values %v, want %s %v", name, o.Kind, o.Values, kind, values)
		}
	}
	check("ctx-size", "int")
	check("flash-attn", "string", "on", "off", "auto")
	check("kv-unified", "switch")
	check("temp", "number")
	check("gpu-layers", "int|string")
	check("mmproj", "string")
	for _, n := range []string{"perplexity", "no-server-thing"} {
		if _, ok := got[n]; ok {
			t.Errorf("%s is not a server option", n)
		}
	}
	if o := got["kv-unified"]; strings.Join(o.Negations, ",") != "no-kv-unified" {
		t.Errorf("kv-unified negations %v", o.Negations)
	}
	if o := got["ctx-size"]; o.Env != "LLAMA_ARG_CTX_SIZE" {
		t.Errorf("ctx-size env %q", o.Env)
	}
	b, err := Table(opts, "c0ffee", "0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	table, err := schema.ParseFlagTable(b)
	if err != nil {
		t.Fatalf("the table does not parse as a schema flag table: %v", err)
	}
	types := map[string]string{}
	for _, f := range table.Flags {
		types[f.Name] = f.Type + strings.Join(f.Choices, "|") + "/" + f.Negation + "/" + strings.Join(f.Aliases, ",")
	}
	for name, want := range map[string]string{"ctx-size": "int//", "flash-attn": "stringon|off|auto//", "kv-unified": "bool/no-kv-unified/",
		"gpu-layers": "string//n-gpu-layers", "temp": "float//"} {
		if types[name] != want {
			t.Errorf("table entry %s = %q, want %q", name, types[name], want)
		}
	}
	if !table.Complete {
		t.Error("the table is not marked complete")
	}
}

func TestServerOptionsRefusesOtherFiles(t *testing.T) {
	if _, err := ServerOptions([]byte("int main() { return 0; }")); err == nil {
		t.Fatal("no error for a file without options")
	}
	if _, err := ServerOptions([]byte(`add_opt(common_arg({"--x"}, "never closed"`)); err == nil {
		t.Fatal("no error for an unbalanced call")
	}
}

// The committed table is what the pinned source gives, when the source is
// extracted (make llamacpp-src).
func TestCommittedTableIsCurrent(t *testing.T) {
	src := os.Getenv("SERVELAB_LLAMACPP_SRC")
	if src == "" {
		src = "../../../.llamacpp/src"
	}
	if _, err := os.Stat(filepath.Join(src, "common", "arg.cpp")); err != nil {
		t.Skipf("no extracted llama.cpp source (make llamacpp-src): %v", err)
	}
	out := filepath.Join(t.TempDir(), "flags.json")
	cmd := exec.Command("go", "run", "./gen", src, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, b)
	}
	got, _ := os.ReadFile(out)
	want, err := os.ReadFile("../../../schema/flags/llamacpp.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("schema/flags/llamacpp.json is not what the pinned source gives: run make llamacpp-flags")
	}
}
