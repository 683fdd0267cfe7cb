package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// withFiles writes the files a trial's launch names (TensorRT-LLM's
// options YAML) into dir, temp file then rename, and returns argv with
// each name replaced by its path there. The names hold a hash of the
// content, which the trial's key covers.
func withFiles(s *schema.Study, t *plan.Trial, argv []string, dir string) ([]string, error) {
	l, err := plan.Command(s, t.Config)
	if err != nil || len(l.Files) == 0 {
		return argv, err
	}
	out := append([]string(nil), argv...)
	for name, body := range l.Files {
		path := filepath.Join(dir, name)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, err
		}
		found := false
		for i, a := range out {
			if a == name {
				out[i], found = path, true
			}
		}
		if !found {
			return nil, fmt.Errorf("launch file %s is not named in the command", name)
		}
	}
	return out, nil
}
