package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing/fstest"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"
)

// ImportPath is the path a study file imports the schema by.
const ImportPath = "servelab.dev/schema"

// PackageDir is where stock cue tools look for the schema in a module
// of studies (`servelab schema export` writes Files there), and
// ModuleFile the module's file, written with Module when missing.
var (
	PackageDir = filepath.Join("cue.mod", "pkg", filepath.FromSlash(ImportPath))
	ModuleFile = filepath.Join("cue.mod", "module.cue")
	Module     = []byte("module: \"studies.local\"\nlanguage: version: \"v0.17.0\"\n")
)

// Version is the schema version; it is part of every trial key, so a
// change that alters how a study is measured must bump it.
const Version = 1

//go:embed *.cue
var cueFiles embed.FS

// Files returns the embedded schema files by name, for `servelab schema`.
func Files() map[string][]byte {
	out := map[string][]byte{}
	names, _ := fs.Glob(cueFiles, "*.cue")
	for _, n := range names {
		b, _ := cueFiles.ReadFile(n)
		out[n] = b
	}
	return out
}

// Loader loads studies against the embedded schema. It is not safe for
// concurrent use: CUE values of one context must not be shared across
// goroutines that evaluate.
type Loader struct {
	ctx    *cue.Context
	schema cue.Value
	study  cue.Value // #Study
	kinds  map[string]EngineKind
	tables map[string]*FlagTable // engine kind → its flag table
	gpus   map[string]GPU
	knobs  []string // portable knob names, in command order
}

// GPU holds the schema's facts about one GPU.
type GPU struct {
	MemoryGiB    float64  `json:"memoryGiB"`
	BandwidthTBs float64  `json:"bandwidthTBs"`
	AKA          []string `json:"aka,omitempty"`
}

// NewLoader compiles the embedded schema.
func NewLoader() (*Loader, error) {
	l := &Loader{ctx: cuecontext.New()}
	fsys := baseFS()
	cfg := &load.Config{FS: fsys, Dir: "/", Env: []string{"CUE_REGISTRY=none"}}
	insts := load.Instances([]string{ImportPath}, cfg)
	if err := insts[0].Err; err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	l.schema = l.ctx.BuildInstance(insts[0])
	if err := l.schema.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	l.study = l.schema.LookupPath(cue.ParsePath("#Study"))
	if err := l.decodeTables(); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	return l, nil
}

func (l *Loader) decodeTables() error {
	kinds := l.schema.LookupPath(cue.ParsePath("#EngineKinds"))
	if err := kinds.Decode(&l.kinds); err != nil {
		return err
	}
	tables, err := LoadFlagTables()
	if err != nil {
		return err
	}
	l.tables = tables
	if err := l.schema.LookupPath(cue.ParsePath("#GPUs")).Decode(&l.gpus); err != nil {
		return err
	}
	it, err := l.schema.LookupPath(cue.ParsePath("#Knobs")).Fields(cue.Optional(true))
	if err != nil {
		return err
	}
	for it.Next() {
		l.knobs = append(l.knobs, it.Selector().Unquoted())
	}
	return nil
}

// baseFS is a virtual CUE module holding only the schema package.
func baseFS() fstest.MapFS {
	fsys := fstest.MapFS{
		"cue.mod/module.cue": {Data: []byte("module: \"servelab.dev\"\nlanguage: version: \"v0.17.0\"\n")},
	}
	for name, b := range Files() {
		fsys["schema/"+name] = &fstest.MapFile{Data: b}
	}
	return fsys
}

// Kinds returns the engine kinds the schema defines.
func (l *Loader) Kinds() map[string]EngineKind { return l.kinds }

// FlagTables returns the engine kinds' flag tables.
func (l *Loader) FlagTables() map[string]*FlagTable { return l.tables }

// GPUs returns the schema's GPU table keyed by nvidia-smi name.
func (l *Loader) GPUs() map[string]GPU { return l.gpus }

// KnobOrder returns the portable knob names in command order.
func (l *Loader) KnobOrder() []string { return l.knobs }

// LoadFile loads, validates and decodes the one study in file. Its error,
// when not nil, is a List holding every problem found.
func (l *Loader) LoadFile(file string) (s *Study, err error) {
	defer func() {
		// A CUE evaluator bug must not take the whole command down with
		// a stack trace: report it against the file.
		if r := recover(); r != nil {
			s, err = nil, List{fileErr(file, "internal error evaluating the study (please report): %v", r)}
		}
	}()
	if filepath.Ext(file) != ".cue" {
		return nil, List{fileErr(file, "not a CUE file (want a .cue file)")}
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, List{fileErr(file, "%v", unwrapPathErr(err))}
	}
	root, errs := l.build(file, src)
	if errs != nil {
		return nil, errs
	}
	id, v, errs := l.studyValue(file, root)
	if errs != nil {
		return nil, errs
	}
	return l.decode(file, id, v, root.LookupPath(cue.MakePath(cue.Str(id))))
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// build evaluates the file in a virtual module beside the schema, so its
// import resolves to the embedded files and nothing else is read.
func (l *Loader) build(file string, src []byte) (cue.Value, List) {
	// Parse first: the loader reports syntax errors against the virtual
	// path, the parser against the user's.
	if _, err := parser.ParseFile(file, src); err != nil {
		return cue.Value{}, fromCUE(err, file, cue.Value{}, nil).Sort()
	}
	fsys := baseFS()
	const dir = "study"
	vpath := dir + "/" + path.Base(filepath.ToSlash(file))
	fsys[vpath] = &fstest.MapFile{Data: src}
	cfg := &load.Config{
		FS:  fsys,
		Dir: "/" + dir,
		Env: []string{"CUE_REGISTRY=none"},
		FromFSPath: func(p string) string {
			if strings.TrimPrefix(p, "/") == vpath {
				return file
			}
			return ImportPath + "/" + path.Base(p)
		},
	}
	insts := load.Instances([]string{"./" + path.Base(vpath)}, cfg)
	if err := insts[0].Err; err != nil {
		return cue.Value{}, fromCUE(err, file, cue.Value{}, nil).Sort()
	}
	v := l.ctx.BuildInstance(insts[0])
	if v.Err() != nil {
		// Err holds the first error only; Validate collects them all.
		return cue.Value{}, fromCUE(v.Validate(), file, v, topLabels(insts[0])).Sort()
	}
	return v, nil
}

// topLabels are the names of the file's regular top-level fields: the
// studies it declares.
func topLabels(inst *build.Instance) map[string]bool {
	ids := map[string]bool{}
	for _, f := range inst.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				if name, _, err := ast.LabelName(fd.Label); err == nil {
					ids[name] = true
				}
			}
		}
	}
	return ids
}

// studyValue finds the one study of a file: its single regular top-level
// field, unified with #Study (so a study that forgot `schema.#Study &` is
// still closed and checked).
func (l *Loader) studyValue(file string, root cue.Value) (string, cue.Value, List) {
	it, err := root.Fields()
	if err != nil {
		return "", cue.Value{}, fromCUE(err, file, root, nil)
	}
	var ids []string
	var v cue.Value
	for it.Next() {
		ids = append(ids, it.Selector().Unquoted())
		v = it.Value()
	}
	switch len(ids) {
	case 0:
		return "", cue.Value{}, List{fileErr(file, "no study: want one top-level field, `\"<id>\": schema.#Study & {...}`")}
	case 1:
	default:
		sort.Strings(ids)
		return "", cue.Value{}, List{fileErr(file, "%d studies (%s): want one study per file", len(ids), strings.Join(ids, ", "))}
	}
	id := ids[0]
	if !nameRE.MatchString(id) {
		return "", cue.Value{}, List{posErr(v.Pos(), file, "", "study id %q: want lower-case letters, digits, '.', '_' and '-'", id)}
	}
	u := v.Unify(l.study)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return "", cue.Value{}, fromCUE(err, file, v, map[string]bool{id: true}).Sort()
	}
	return id, u, nil
}
