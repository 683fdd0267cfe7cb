//go:build !linux

package load

import "errors"

// Elsewhere than Linux the client reads through net/http.
func newEpollTransport(string) (transport, error) { return nil, errors.New("no epoll on this system") }
