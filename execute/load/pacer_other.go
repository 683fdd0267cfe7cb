//go:build !linux

package load

import "errors"

func newTimerfd() (sleeper, error) { return nil, errors.New("no timerfd") }
