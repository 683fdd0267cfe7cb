package load

import (
	"bytes"
	"context"
	"errors"
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
// HTTP parsing, no JSON, no timing, no pacing). What it costs is the
// kernel's: waking the thread, and a read a chunk with the ACK that
// read sends. It returns that CPU time per chunk in µs and the chunks
// read a second.
func ReadFloor(ctx context.Context, base, model string, d time.Duration) (float64, float64, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return 0, 0, errors.New("read floor: not a plain http URL")
	}
	body := fmt.Sprintf(`{"model":%q,"stream":true,"max_tokens":%d,"ignore_eos":true,"prompt":[1,2,3,4],"stream_options":{"include_usage":true}}`, model, CalibrationTokens)
	req := fmt.Appendf(nil, "POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Host, len(body), body)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Close(epfd)
	var fds []int
	for i := range CalibrationStreams {
		var dl net.Dialer
		c, err := dl.DialContext(ctx, "tcp", u.Host)
		if err != nil {
			return 0, 0, err
		}
		f, err := c.(*net.TCPConn).File() // a blocking duplicate, outside the netpoller
		c.Close()
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		fd := int(f.Fd())
		fds = append(fds, fd)
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return 0, 0, err
		}
		if _, err := unix.Write(fd, req); err != nil {
			return 0, 0, err
		}
	}
	buf, events := make([]byte, 64<<10), make([]unix.EpollEvent, 256)
	data, end := []byte("data: "), []byte("0\r\n\r\n")
	run := func(d time.Duration) (int, time.Duration, error) {
		chunks, cpu0, stop := 0, cpuTime(), time.Now().Add(d)
		for time.Now().Before(stop) && ctx.Err() == nil {
			n, err := rawEpollWait(epfd, events, 100)
			if err == unix.EINTR {
				continue
			}
			for _, ev := range events[:n] {
				fd := fds[ev.Fd]
				k, err := rawRead(fd, buf)
				if err != nil || k == 0 {
					return 0, 0, fmt.Errorf("read floor: the simulator closed a stream (%v)", err)
				}
				chunks += bytes.Count(buf[:k], data)
				if bytes.HasSuffix(buf[:k], end) {
					unix.Write(fd, req)
				}
			}
		}
		return chunks, cpuTime() - cpu0, ctx.Err()
	}
	if _, _, err := run(d / 2); err != nil { // warm-up
		return 0, 0, err
	}
	chunks, cpu, err := run(d)
	if err != nil || chunks == 0 {
		return 0, 0, cmpErr(err, "read floor: no chunk read")
	}
	return float64(cpu.Nanoseconds()) / 1000 / float64(chunks), float64(chunks) / d.Seconds(), nil
}

func cmpErr(err error, why string) error {
	if err != nil {
		return err
	}
	return errors.New(why)
}

// rawEpollWait and rawRead do not tell the runtime that the thread is in
// a system call: the thread is locked and runs nothing else, and handing
// its P off while it waits would be the runtime's cost, not the
// kernel's. (The wait is bounded, so a stop-the-world waits 100 ms at
// most.)
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
