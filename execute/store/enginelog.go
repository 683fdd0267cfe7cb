package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// EngineLogName is the file beside a trial's runs that holds the log of
// the engine that served it: the runner copies it there after the run.
// Imported runs have none.
const EngineLogName = "engine.log"

// EngineLog opens the engine log of trial key. A trial without one
// (imported runs, a folder copied without it) gives nil and no error.
// The caller closes it.
func (s *Store) EngineLog(key string) (io.ReadCloser, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("%q is not a trial key", key)
	}
	f, err := os.Open(filepath.Join(s.Dir, key, EngineLogName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the engine log of trial %s: %w", key[:12], err)
	}
	return f, nil
}

// validKey is a trial key as the store files them: 64 hex digits, so
// that no key names a path outside its folder.
func validKey(key string) bool {
	if len(key) != 64 {
		return false
	}
	for _, c := range key {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
