// Package gguf reads the metadata of GGUF files and writes new ones: the
// file format llama.cpp loads models from (its layout is described in
// llama.cpp's ggml/include/gguf.h and docs/gguf.md: a header, key-value
// metadata, tensor descriptions, then the tensors' data, aligned).
//
// servelab writes GGUF files to measure llama.cpp with models nobody has
// to download: the weights are random, the architecture and tokenizer
// are real, so a forward pass costs what the real model's costs.
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Magic opens every GGUF file; Version is the format version written.
const (
	Magic   = "GGUF"
	Version = 3
	// DefaultAlignment is used when general.alignment is not set.
	DefaultAlignment = 32
)

// ValueType is a metadata value's type tag.
type ValueType uint32

// Value types, numbered as in gguf.h.
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

// TensorType is a tensor's ggml type. Only the types servelab writes are
// named; others are read as their number.
type TensorType uint32

// Tensor types, numbered as ggml_type in ggml.h.
const (
	F32  TensorType = 0
	F16  TensorType = 1
	Q8_0 TensorType = 8
	BF16 TensorType = 30
)

// KV is one metadata entry. Value holds a Go value of the type's kind:
// uint8…float64, bool, string, or Array.
type KV struct {
	Key   string
	Type  ValueType
	Value any
}

// Array is an array value: its element type and elements, each a Go
// value as in KV.
type Array struct {
	Elem   ValueType
	Values []any
}

// TensorInfo describes one tensor: Dims are ggml's ne, fastest first.
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   TensorType
	Offset uint64
}

// File is a GGUF file's metadata and tensor descriptions.
type File struct {
	Version uint32
	KV      []KV
	Tensors []TensorInfo
	// DataOffset is where tensor data starts in the file.
	DataOffset int64
}

// Get returns the entry named key.
func (f *File) Get(key string) (KV, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv, true
		}
	}
	return KV{}, false
}

// limits on what a header may claim, so a corrupt file fails with an
// error instead of an allocation that exhausts memory.
const (
	maxString = 1 << 30
	maxCount  = 1 << 28
	maxDims   = 4
)

// ReadFile reads the metadata and tensor descriptions of the file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read parses a GGUF header from r.
func Read(r io.Reader) (*File, error) {
	cr := &countReader{r: bufio.NewReaderSize(r, 1<<20)}
	d := decoder{r: cr}
	var magic [4]byte
	if _, err := io.ReadFull(cr, magic[:]); err != nil || string(magic[:]) != Magic {
		return nil, errors.New("not a GGUF file (bad magic)")
	}
	f := &File{Version: d.u32()}
	if d.err == nil && (f.Version < 2 || f.Version > 3) {
		return nil, fmt.Errorf("GGUF version %d: only versions 2 and 3 are read", f.Version)
	}
	nt, nkv := d.count(), d.count()
	for i := uint64(0); i < nkv && d.err == nil; i++ {
		key := d.str()
		t := ValueType(d.u32())
		v := d.value(t, 0)
		f.KV = append(f.KV, KV{Key: key, Type: t, Value: v})
	}
	for i := uint64(0); i < nt && d.err == nil; i++ {
		ti := TensorInfo{Name: d.str()}
		n := d.u32()
		if n == 0 || n > maxDims {
			d.fail(fmt.Errorf("tensor %q: %d dimensions", ti.Name, n))
			break
		}
		for j := uint32(0); j < n; j++ {
			ti.Dims = append(ti.Dims, d.u64())
		}
		ti.Type, ti.Offset = TensorType(d.u32()), d.u64()
		f.Tensors = append(f.Tensors, ti)
	}
	if d.err != nil {
		return nil, fmt.Errorf("at byte %d: %w", cr.n, d.err)
	}
	align := uint64(DefaultAlignment)
	if kv, ok := f.Get("general.alignment"); ok {
		if a, ok := kv.Value.(uint32); ok && a > 0 {
			align = uint64(a)
		}
	}
	f.DataOffset = int64(pad(uint64(cr.n), align))
	return f, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type decoder struct {
	r   io.Reader
	err error
	buf [8]byte
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) read(n int) []byte {
	if d.err != nil {
		return make([]byte, n)
	}
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		d.fail(fmt.Errorf("truncated: %w", err))
	}
	return d.buf[:n]
}

func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.read(4)) }
func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.read(8)) }

func (d *decoder) count() uint64 {
	n := d.u64()
	if n > maxCount {
		d.fail(fmt.Errorf("count %d is implausibly large", n))
		return 0
	}
	return n
}

func (d *decoder) str() string {
	n := d.u64()
	if n > maxString {
		d.fail(fmt.Errorf("string of %d bytes is implausibly long", n))
	}
	if d.err != nil {
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.fail(fmt.Errorf("truncated string: %w", err))
	}
	return string(b)
}

func (d *decoder) value(t ValueType, depth int) any {
	switch t {
	case TypeUint8:
		return d.read(1)[0]
	case TypeInt8:
		return int8(d.read(1)[0])
	case TypeUint16:
		return binary.LittleEndian.Uint16(d.read(2))
	case TypeInt16:
		return int16(binary.LittleEndian.Uint16(d.read(2)))
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		return d.read(1)[0] != 0
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	case TypeArray:
		if depth > 0 {
			d.fail(errors.New("nested arrays are not supported"))
			return nil
		}
		a := Array{Elem: ValueType(d.u32())}
		n := d.count()
		for i := uint64(0); i < n && d.err == nil; i++ {
			a.Values = append(a.Values, d.value(a.Elem, depth+1))
		}
		return a
	}
	d.fail(fmt.Errorf("unknown value type %d", t))
	return nil
}

func pad(n, align uint64) uint64 { return (n + align - 1) / align * align }
