package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// ErrLocked is returned when another process holds the results folder.
var ErrLocked = errors.New("results folder is locked")

// Lock takes the folder's exclusive lock, waiting up to wait for another
// holder to finish. The kernel drops the lock when the process dies, so
// a crash leaves no stale lock. who is written into the lock file so the
// next waiter can say who holds it.
func (s *Store) Lock(wait time.Duration, who string) (unlock func(), err error) {
	return s.LockFile(".lock", wait, who)
}

// LockFile is Lock on another lock file of the folder: a cluster job
// locks its own configuration group, while the driver that submitted it
// holds the folder's lock.
func (s *Store) LockFile(name string, wait time.Duration, who string) (unlock func(), err error) {
	if err := MakeDir(s.Dir); err != nil {
		return nil, err
	}
	ignoreRuntimeFiles(s.Dir)
	path := filepath.Join(s.Dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if time.Now().After(deadline) {
			holder, _ := os.ReadFile(path)
			f.Close()
			return nil, fmt.Errorf("%w: %s is held by %s; wait for it to finish, or give another --results folder", ErrLocked, s.Dir, strings.TrimSpace(string(holder)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d (%s)\n", os.Getpid(), who)
	return func() {
		f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// gitignore keeps the files that only mean something while a servelab
// runs (the lock, engine pid files, temporary files of atomic writes)
// out of git, in any results folder.
const gitignore = "# written by servelab: files that only mean something while servelab runs\n.lock\n.lock-group-*\n.engine-*.pid\n.engine-*.pid.tmp\n.tmp-*\n"

// ignoreRuntimeFiles writes results/.gitignore when there is none; one
// that exists is the project's and is left as it is.
func ignoreRuntimeFiles(dir string) {
	path := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		writeAtomic(path, []byte(gitignore))
	}
}

// tempName is the name os.CreateTemp gives writeAtomic's files, and the
// engine's pid file while it is written.
var tempName = regexp.MustCompile(`^(\.tmp-[0-9]+|\.engine-[0-9a-f]{16}\.pid\.tmp)$`)

// CleanTemp removes the temporary files that a writer killed between
// its write and its rename left (.tmp-* in the folder and in each
// trial's folder), and returns their paths. Call it holding the lock:
// then no live writer owns one.
func (s *Store) CleanTemp() []string {
	var gone []string
	for _, pat := range []string{".tmp-*", "*/.tmp-*", ".engine-*.pid.tmp"} {
		files, _ := filepath.Glob(filepath.Join(s.Dir, pat))
		for _, f := range files {
			if !tempName.MatchString(filepath.Base(f)) {
				continue // not a name servelab's writers give
			}
			if os.Remove(f) == nil {
				gone = append(gone, f)
			}
		}
	}
	return gone
}
