package site

import (
	"errors"
	"net"
	"net/http"
)

// CheckServeAddr accepts a host:port on a loopback address only: Serve
// is a preview, not a public server.
func CheckServeAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("only loopback addresses (127.0.0.1, ::1, localhost)")
	}
	return nil
}

// Serve serves the built site in dir on addr (checked with
// CheckServeAddr) until the server fails; listening is called with the
// address it listens on once it does (a port of 0 is chosen then).
func Serve(dir, addr string, listening func(addr string)) error {
	if err := CheckServeAddr(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	listening(ln.Addr().String())
	return http.Serve(ln, http.FileServer(http.Dir(dir)))
}
