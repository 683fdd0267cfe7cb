package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// An engine's output is kept within a bound, whatever it prints: the
// log file holds its first LogHead bytes, and once those are written
// the latest output goes to LOG.tail, renamed to LOG.tail.1 each time
// it reaches LogTail bytes. A run's log files never exceed
// LogHead + 2·LogTail (32 MiB) and servelab copies through a fixed
// buffer, so an engine that prints without pause costs neither disk nor
// memory without bound.
const (
	LogHead = 16 << 20
	LogTail = 8 << 20
)

// capped is the writer behind an engine's stdout and stderr.
type capped struct {
	path       string
	head, tail *os.File
	headN      int64
	tailN      int64
	err        error // the first write error: later output is dropped
}

func newCapped(path string) (*capped, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	// The tail files of an earlier launch's log continue the head just
	// replaced: left there, Tail would quote them as this launch's.
	for _, old := range []string{path + ".tail", path + ".tail.1"} {
		if err := os.Remove(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.Close()
			return nil, err
		}
	}
	return &capped{path: path, head: f}, nil
}

// Write keeps b within the bound; it never fails, so that the copy from
// the engine's pipe goes on draining it (an engine blocked on a full
// pipe would stall).
func (c *capped) Write(b []byte) (int, error) {
	n := len(b)
	if c.err != nil {
		return n, nil
	}
	if room := LogHead - c.headN; room > 0 {
		k := min(int64(len(b)), room)
		_, c.err = c.head.Write(b[:k])
		c.headN += k
		b = b[k:]
	}
	for len(b) > 0 && c.err == nil {
		if c.tail == nil || c.tailN >= LogTail {
			c.err = c.rotate()
			continue
		}
		k := min(int64(len(b)), LogTail-c.tailN)
		_, c.err = c.tail.Write(b[:k])
		c.tailN += k
		b = b[k:]
	}
	return n, nil
}

// rotate starts a fresh LOG.tail, keeping the previous as LOG.tail.1;
// the first time, it says in the head where the rest went.
func (c *capped) rotate() error {
	if c.tail == nil {
		fmt.Fprintf(c.head, "\n[servelab: the engine's output went on beyond %d MiB; its latest part is in %s.tail (and %s.tail.1)]\n",
			LogHead>>20, filepath.Base(c.path), filepath.Base(c.path))
	} else {
		c.tail.Close()
		if err := os.Rename(c.path+".tail", c.path+".tail.1"); err != nil {
			return err
		}
	}
	f, err := os.Create(c.path + ".tail")
	c.tail, c.tailN = f, 0
	return err
}

func (c *capped) Close() error {
	if c.tail != nil {
		c.tail.Close()
	}
	return c.head.Close()
}

// tailBytes bounds what Tail reads: the end of the file, never the whole.
const tailBytes = 64 << 10

// Tail is the last n lines of an engine's log: of its latest part when
// the output went beyond the head. It reads at most 128 KiB.
func Tail(path string, n int) string {
	b, err := lastBytes(path + ".tail")
	if err != nil || len(b) == 0 {
		b, err = lastBytes(path)
	} else if bytes.Count(b, []byte("\n")) < n {
		older, _ := lastBytes(path + ".tail.1")
		b = append(older, b...)
	}
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	text := strings.TrimRight(string(b), "\n")
	if text == "" {
		return "  (the engine printed nothing)"
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 2048 {
			lines[i] = "…" + l[len(l)-2048:]
		}
	}
	return "  " + strings.Join(lines, "\n  ")
}

// lastBytes reads the last tailBytes of a file.
func lastBytes(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(0, fi.Size()-tailBytes)
	return io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
}
