//go:build !linux

package host

import "errors"

// Pin needs Linux.
func Pin(pid, cpu int) (restore func(), err error) {
	return func() {}, errors.New("pinning to a CPU needs Linux")
}

// PinApart needs Linux.
func PinApart(a, b int) (cpus [2]int, restore func(), err error) {
	return cpus, func() {}, errors.New("pinning to a CPU needs Linux")
}
