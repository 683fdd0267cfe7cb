//go:build !linux

package load

import (
	"errors"
	"testing"
)

func pin(pid, cpu int) error { return errors.New("pinning needs Linux") }

func simPID(t testing.TB, url string) int { return simPIDs[url] }
