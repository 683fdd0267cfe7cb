//go:build !linux

package load

import (
	"context"
	"errors"
	"time"
)

// ReadFloor needs Linux's epoll.
func ReadFloor(context.Context, string, string, time.Duration) (float64, float64, error) {
	return 0, 0, errors.New("read floor: needs Linux")
}
