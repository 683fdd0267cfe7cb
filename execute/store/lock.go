package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
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
			return nil, fmt.Errorf("%w: %s is held by %s", ErrLocked, s.Dir, strings.TrimSpace(string(holder)))
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
