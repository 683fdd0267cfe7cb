package load

import (
	"context"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// timerfd sleeps on a Linux timerfd read through the netpoller: the
// goroutine parks (no thread is held) and wakes on the kernel's
// high-resolution timer, tens of microseconds late at most, where the Go
// timer is up to a millisecond late.
type timerfd struct {
	f   *os.File
	fd  uintptr
	buf [8]byte
}

func newTimerfd() (*timerfd, error) {
	const clockMonotonic = 1
	fd, _, e := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return nil, e
	}
	// A non-blocking descriptor given to os.NewFile is registered with the
	// netpoller, so Read parks the goroutine and honours deadlines.
	return &timerfd{f: os.NewFile(fd, "timerfd"), fd: fd}, nil
}

func (t *timerfd) sleep(ctx context.Context, d time.Duration) bool {
	spec := [2]syscall.Timespec{{}, syscall.NsecToTimespec(int64(d))} // interval, value
	if _, _, e := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); e != 0 {
		return goSleeper{}.sleep(ctx, d)
	}
	stop := context.AfterFunc(ctx, func() { t.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	_, err := t.f.Read(t.buf[:])
	return err == nil && ctx.Err() == nil
}

func (t *timerfd) close() { t.f.Close() }
