// Package wire is the compact binary form the store's call batches and
// trees and an item's events are written in: varints, little-endian
// float64s and length-prefixed strings. A Reader checks every length
// against what is left, so a corrupt value is an error, never a panic.
package wire

import (
	"encoding/binary"
	"math"
)

// Writer appends values to B.
type Writer struct{ B []byte }

func (w *Writer) Uvarint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }
func (w *Writer) Varint(v int64)   { w.B = binary.AppendVarint(w.B, v) }
func (w *Writer) Float(v float64)  { w.B = binary.LittleEndian.AppendUint64(w.B, math.Float64bits(v)) }
func (w *Writer) Str(s string)     { w.Uvarint(uint64(len(s))); w.B = append(w.B, s...) }

// Reader reads values from the front of B. The first malformed value sets
// Err to Corrupt and empties B; every later read then gives zero.
type Reader struct {
	B       []byte
	Err     error
	Corrupt error // the error of a malformed value (each format names its own)
}

// Fail records a malformed value.
func (r *Reader) Fail() {
	if r.Err == nil {
		r.Err = r.Corrupt
	}
	r.B = nil
}

func (r *Reader) Byte() byte {
	if len(r.B) == 0 {
		r.Fail()
		return 0
	}
	v := r.B[0]
	r.B = r.B[1:]
	return v
}

func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Count reads a number of records, each at least one byte long.
func (r *Reader) Count() int { return r.CountOf(1) }

// CountOf reads a number of records of at least size bytes each: more
// than what is left can hold is malformed.
func (r *Reader) CountOf(size int) int {
	v := r.Uvarint()
	if v > uint64(len(r.B)/size) {
		r.Fail()
		return 0
	}
	return int(v)
}

func (r *Reader) Float() float64 {
	if len(r.B) < 8 {
		r.Fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.B))
	r.B = r.B[8:]
	return v
}

func (r *Reader) Str() string {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		r.Fail()
		return ""
	}
	s := string(r.B[:n])
	r.B = r.B[n:]
	return s
}
