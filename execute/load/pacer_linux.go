package load

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerfd sleeps on a Linux timerfd read through the netpoller: the
// goroutine parks (no thread is held) and wakes on the kernel's
// high-resolution timer, tens of microseconds late at most, where the Go
// timer is up to a millisecond late.
type timerfd struct {
	f   *os.File
	fd  int
	buf [8]byte
}

func newTimerfd() (*timerfd, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	// A non-blocking descriptor given to os.NewFile is registered with the
	// netpoller, so Read parks the goroutine and honours deadlines.
	return &timerfd{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}, nil
}

func (t *timerfd) sleep(ctx context.Context, d time.Duration) bool {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(t.fd, 0, &spec, nil); err != nil {
		return goSleeper{}.sleep(ctx, d)
	}
	stop := context.AfterFunc(ctx, func() { t.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	_, err := t.f.Read(t.buf[:])
	return err == nil && ctx.Err() == nil
}

func (t *timerfd) close() { t.f.Close() }
