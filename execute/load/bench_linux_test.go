package load

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkLoopbackRead is the floor under BenchmarkClient's CPU per
// chunk on this host: the CPU time of one read of a 300-byte chunk that
// arrived in its own TCP segment on loopback (a streamed chunk at one a
// millisecond a stream comes so, however the reader is built). With
// the kernel's immediate ACK, as a streaming client gets it, and with
// delayed ACK (TCP_QUICKACK off before each read), to show what the ACK
// costs the reader.
func BenchmarkLoopbackRead(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	cc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	sc, err := l.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	var fd int
	raw, _ := cc.(*net.TCPConn).SyscallConn()
	raw.Control(func(s uintptr) { fd = int(s) })
	msg, buf := make([]byte, 300), make([]byte, 64<<10)
	var quick, delayed time.Duration
	n := 0
	for b.Loop() {
		for _, delay := range []bool{false, true} {
			if delay {
				unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 0)
			}
			if _, err := sc.Write(msg); err != nil {
				b.Fatal(err)
			}
			began := time.Now()
			if k, err := unix.Read(fd, buf); k != len(msg) || err != nil {
				b.Fatalf("read %d: %v", k, err)
			}
			if delay {
				delayed += time.Since(began)
			} else {
				quick += time.Since(began)
			}
		}
		n++
	}
	b.ReportMetric(float64(quick.Nanoseconds())/float64(n)/1000, "µs/read")
	b.ReportMetric(float64(delayed.Nanoseconds())/float64(n)/1000, "µs/read-delayed-ack")
}
