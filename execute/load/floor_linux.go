package load

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ReadFloor is the least CPU a client can spend a streamed chunk on this
// host, for Calibrate's load: CalibrationStreams kept-alive connections
// to the simulator at base, each asking again for CalibrationTokens
// tokens of model as soon as its response ends, read for d by one
// locked thread that only waits on epoll, reads and counts events (no
// HTTP parsing, no JSON, no per-chunk timestamps, no pacing). What it
// costs is the kernel's: waking the thread, and a read a chunk with the
// ACK that read sends. It returns that CPU time per chunk in µs and the
// chunks read a second.
func ReadFloor(ctx context.Context, base, model string, d time.Duration) (float64, float64, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return 0, 0, fmt.Errorf("read floor: %s is not a plain http URL", base)
	}
	// The request the client itself would send for Calibrate's prompt.
	c := client{t: Target{Model: model, API: "completions"}, l: Load{IgnoreEOS: true}}
	body := c.body(calibrationPrompt)
	req := (&epollTransport{host: u.Host, uri: "/v1/completions"}).request(body, 1)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f := floor{req: req}
	defer f.close()
	if err := f.open(ctx, u.Host); err != nil {
		return 0, 0, fmt.Errorf("read floor: %w", err)
	}
	if _, _, err := f.run(ctx, d/2); err != nil { // warm-up
		return 0, 0, err
	}
	chunks, cpu, err := f.run(ctx, d)
	if err != nil {
		return 0, 0, err
	}
	if chunks == 0 {
		return 0, 0, fmt.Errorf("read floor: no chunk read from %s in %v", base, d)
	}
	return float64(cpu.Nanoseconds()) / 1000 / float64(chunks), float64(chunks) / d.Seconds(), nil
}

// floor is ReadFloor's connections: duplicates of dialled sockets,
// outside Go's netpoller (the dialled originals are closed, which takes
// them out of it), in an epoll set of its own.
type floor struct {
	req  []byte
	epfd int
	fds  []int
}

func (f *floor) open(ctx context.Context, addr string) error {
	var err error
	if f.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return err
	}
	for i := range CalibrationStreams {
		var dl net.Dialer
		c, err := dl.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		fd := -1
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err == nil {
			rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
		}
		c.Close()
		if err != nil {
			return err
		}
		f.fds = append(f.fds, fd) // non-blocking, as the original was
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}
		if err := unix.EpollCtl(f.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return err
		}
		if _, err := unix.Write(fd, f.req); err != nil {
			return err
		}
	}
	return nil
}

func (f *floor) close() {
	for _, fd := range f.fds {
		unix.Close(fd)
	}
	if f.epfd > 0 {
		unix.Close(f.epfd)
	}
}

// run reads for d: chunks counted and the process's CPU time meanwhile.
// A stream whose response ended asks again; one whose end came split
// over two reads is seen by its last bytes only when they hold it all,
// so it may stop asking, which only lowers the rate.
func (f *floor) run(ctx context.Context, d time.Duration) (int, time.Duration, error) {
	buf, events := make([]byte, 64<<10), make([]unix.EpollEvent, 256)
	data, end := []byte("data: "), []byte("0\r\n\r\n")
	chunks, cpu0, stop := 0, cpuTime(), time.Now().Add(d)
	for time.Now().Before(stop) && ctx.Err() == nil {
		n, err := rawEpollWait(f.epfd, events, 100)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, 0, fmt.Errorf("read floor: epoll_wait: %w", err)
		}
		for _, ev := range events[:n] {
			fd := f.fds[ev.Fd]
			k, err := rawRead(fd, buf)
			switch {
			case err == unix.EAGAIN || err == unix.EINTR:
				continue // woken for nothing: wait again
			case err != nil:
				return 0, 0, fmt.Errorf("read floor: read: %w", err)
			case k == 0:
				return 0, 0, fmt.Errorf("read floor: the simulator closed stream %d", ev.Fd)
			}
			chunks += bytes.Count(buf[:k], data)
			if bytes.HasSuffix(buf[:k], end) {
				if _, err := unix.Write(fd, f.req); err != nil {
					return 0, 0, fmt.Errorf("read floor: write: %w", err)
				}
			}
		}
	}
	return chunks, cpuTime() - cpu0, ctx.Err()
}

// rawEpollWait and rawRead do not tell the runtime that the thread is in
// a system call: the thread is locked and runs nothing else, and handing
// its P off while it waits would be the runtime's cost, not the
// kernel's. Neither can block for long: the wait returns within 100 ms
// (or at a signal, with EINTR), and the sockets are non-blocking, so a
// stop-the-world waits 100 ms at most.
func rawEpollWait(epfd int, events []unix.EpollEvent, msec int) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(msec), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawRead(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
