package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/startup"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// EngineLogs opens the engine log of a trial, nil when it has none;
// *store.Store is one.
type EngineLogs interface {
	EngineLog(key string) (io.ReadCloser, error)
}

// BuildWithLogs is Build with what each configuration's engine printed
// about its settings when it started, read from the trials' engine logs:
// a reader sees whether the engine ran what the command asked.
func BuildWithLogs(s *schema.Study, a *decide.Analysis, runs decide.Runs, logs EngineLogs) (*d.Doc, error) {
	st, err := readStartup(a, runs, logs)
	if err != nil {
		return nil, err
	}
	return build(s, a, runs, st), nil
}

// readStartup parses the start-up log of every trial with records whose
// engine's logs are understood, by trial key.
func readStartup(a *decide.Analysis, runs decide.Runs, logs EngineLogs) (map[string]*startup.Settings, error) {
	out := map[string]*startup.Settings{}
	if logs == nil || a.Plan == nil {
		return out, nil
	}
	for _, t := range a.Plan.Trials {
		if len(runs[t.Key]) == 0 || !startup.Known(t.Kind) {
			continue
		}
		r, err := logs.EngineLog(t.Key)
		if err != nil || r == nil {
			if err != nil {
				return nil, fmt.Errorf("trial %s: %w", t.Key[:12], err)
			}
			continue
		}
		s, err := startup.Read(r, t.Kind)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("trial %s: %w", t.Key[:12], err)
		}
		if s != nil {
			out[t.Key] = s
		}
	}
	return out, nil
}

// configID is what makes two trials one configuration: the engine and
// its command, whatever the load or the repeat.
func configID(kind, version string, argv []string, env map[string]string) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%v", kind, version, strings.Join(argv, "\x00"), env)
}

// launchView is what the launches of one configuration printed.
type launchView struct {
	kind     string
	argv     []string
	first    *startup.Settings // of the first launch with a log, in plan order
	launches int               // launches with a log
	varying  []string          // settings whose value differs between launches
	notices  []noticeCount
}

type noticeCount struct {
	n startup.Notice
	k int // launches that printed it
}

// launches gathers the start-up settings of every launch of the
// configuration id; nil when none has a log.
func (b *builder) launches(id string) *launchView {
	v := &launchView{}
	seen := map[string]bool{}
	for _, t := range b.a.Plan.Trials {
		s := b.startup[t.Key]
		if s == nil || configID(t.Kind, t.Version, t.Argv, t.Env) != id || seen[plan.LaunchKey(t)] {
			continue
		}
		seen[plan.LaunchKey(t)] = true
		if v.first == nil {
			v.first, v.kind, v.argv = s, t.Kind, t.Argv
		}
		v.launches++
		v.compare(s)
	}
	if v.first == nil {
		return nil
	}
	return v
}

// compare notes the settings s gives other values than the first launch
// did, and counts its notices.
func (v *launchView) compare(s *startup.Settings) {
	vary := func(name string) {
		if settingValue(v.first, name) != settingValue(s, name) && !slices.Contains(v.varying, name) {
			v.varying = append(v.varying, name)
		}
	}
	for _, st := range v.first.Settings {
		vary(st.Name)
	}
	for _, st := range s.Settings {
		vary(st.Name)
	}
	for _, n := range s.Notices {
		i := slices.IndexFunc(v.notices, func(c noticeCount) bool { return c.n.Text == n.Text })
		if i < 0 {
			v.notices = append(v.notices, noticeCount{n: n})
			i = len(v.notices) - 1
		}
		v.notices[i].k++
	}
}

// settingValue is the value s gives setting name, "" when it has none.
func settingValue(s *startup.Settings, name string) string {
	for _, st := range s.Settings {
		if st.Name == name {
			return st.Value
		}
	}
	return ""
}

// argValue is the value argv gives flag: the next word, the part after
// "=", "" for a flag without a value; ok is false when argv lacks it.
func argValue(argv []string, flag string) (string, bool) {
	for i, a := range argv {
		if a == flag {
			if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				return argv[i+1], true
			}
			return "", true
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
	}
	return "", false
}
