package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Tensor is one tensor to write: its description and what fills it.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	// Fill writes exactly Size() bytes of data.
	Fill func(w io.Writer) error
}

// Elements is the number of values in the tensor.
func (t Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Size is the tensor's data size in bytes, for the types servelab writes.
func (t Tensor) Size() (uint64, error) {
	switch t.Type {
	case F32:
		return 4 * t.Elements(), nil
	case F16, BF16:
		return 2 * t.Elements(), nil
	}
	return 0, fmt.Errorf("tensor %s: writing type %d is not supported", t.Name, t.Type)
}

// WriteFile writes a GGUF file to path through a temporary file in the
// same folder, renamed into place only once complete, so a failed or
// interrupted write never leaves a partial model where a server would
// load it.
func WriteFile(path string, kvs []KV, tensors []Tensor) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file private; a model is as readable as any output.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	bw := bufio.NewWriterSize(tmp, 4<<20)
	if err := Write(bw, kvs, tensors); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Write writes a complete GGUF file to w: header, metadata, tensor
// descriptions, then each tensor's data at its aligned offset.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	e := &encoder{w: w}
	e.bytes([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.u32(uint32(kv.Type))
		e.value(kv.Key, kv.Type, kv.Value)
	}
	align := uint64(DefaultAlignment)
	offsets := make([]uint64, len(tensors))
	var off uint64
	for i, t := range tensors {
		size, err := t.Size()
		if err != nil {
			return err
		}
		offsets[i] = off
		off = pad(off+size, align)
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	e.zeros(pad(e.n, align) - e.n)
	if e.err != nil {
		return e.err
	}
	for i, t := range tensors {
		start := e.n
		if err := t.Fill(e); err != nil {
			return fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		size, _ := t.Size()
		if got := e.n - start; got != size {
			return fmt.Errorf("tensor %s: filled %d bytes, want %d", t.Name, got, size)
		}
		if i+1 < len(tensors) {
			e.zeros(pad(e.n, align) - e.n)
		}
		if e.err != nil {
			return e.err
		}
	}
	return e.err
}

type encoder struct {
	w   io.Writer
	n   uint64
	err error
	buf [8]byte
}

// Write lets a tensor's Fill write through the encoder, which counts.
func (e *encoder) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.n += uint64(n)
	e.err = err
	return n, err
}

func (e *encoder) bytes(p []byte) { e.Write(p) }
func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.Write(e.buf[:4])
}
func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.Write(e.buf[:8])
}
func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.Write([]byte(s))
}
func (e *encoder) zeros(n uint64) { e.Write(make([]byte, n)) }

func (e *encoder) value(key string, t ValueType, v any) {
	ok := true
	switch t {
	case TypeUint8:
		var x uint8
		x, ok = v.(uint8)
		e.Write([]byte{x})
	case TypeInt8:
		var x int8
		x, ok = v.(int8)
		e.Write([]byte{byte(x)})
	case TypeUint16:
		var x uint16
		x, ok = v.(uint16)
		e.Write(binary.LittleEndian.AppendUint16(nil, x))
	case TypeInt16:
		var x int16
		x, ok = v.(int16)
		e.Write(binary.LittleEndian.AppendUint16(nil, uint16(x)))
	case TypeUint32:
		var x uint32
		x, ok = v.(uint32)
		e.u32(x)
	case TypeInt32:
		var x int32
		x, ok = v.(int32)
		e.u32(uint32(x))
	case TypeFloat32:
		var x float32
		x, ok = v.(float32)
		e.u32(math.Float32bits(x))
	case TypeBool:
		var x bool
		x, ok = v.(bool)
		b := byte(0)
		if x {
			b = 1
		}
		e.Write([]byte{b})
	case TypeString:
		var x string
		x, ok = v.(string)
		e.str(x)
	case TypeUint64:
		var x uint64
		x, ok = v.(uint64)
		e.u64(x)
	case TypeInt64:
		var x int64
		x, ok = v.(int64)
		e.u64(uint64(x))
	case TypeFloat64:
		var x float64
		x, ok = v.(float64)
		e.u64(math.Float64bits(x))
	case TypeArray:
		var a Array
		a, ok = v.(Array)
		e.u32(uint32(a.Elem))
		e.u64(uint64(len(a.Values)))
		for _, x := range a.Values {
			e.value(key, a.Elem, x)
		}
	default:
		ok = false
	}
	if !ok && e.err == nil {
		e.err = fmt.Errorf("metadata %s: value %T does not match type %d", key, v, t)
	}
}
