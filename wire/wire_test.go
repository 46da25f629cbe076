package wire

import (
	"errors"
	"math"
	"testing"
)

var errBad = errors.New("bad")

func TestRoundTrip(t *testing.T) {
	var w Writer
	w.Uvarint(math.MaxUint64)
	w.Varint(math.MinInt64)
	w.Float(-0.25)
	w.Str("héllo")
	w.B = append(w.B, 7)
	w.Uvarint(2) // a count of two one-byte records
	w.B = append(w.B, 1, 2)
	r := Reader{B: w.B, Corrupt: errBad}
	if v := r.Uvarint(); v != math.MaxUint64 {
		t.Errorf("Uvarint %d", v)
	}
	if v := r.Varint(); v != math.MinInt64 {
		t.Errorf("Varint %d", v)
	}
	if v := r.Float(); v != -0.25 {
		t.Errorf("Float %v", v)
	}
	if v := r.Str(); v != "héllo" {
		t.Errorf("Str %q", v)
	}
	if v := r.Byte(); v != 7 {
		t.Errorf("Byte %d", v)
	}
	if v := r.Count(); v != 2 {
		t.Errorf("Count %d", v)
	}
	r.B = r.B[2:]
	if r.Err != nil || len(r.B) != 0 {
		t.Fatalf("err %v, %d bytes left", r.Err, len(r.B))
	}
}

// Every read past what is left, or of a length more than is left, is the
// format's Corrupt error and leaves nothing more to read.
func TestMalformed(t *testing.T) {
	long := func() []byte { var w Writer; w.Uvarint(10); return append(w.B, "abc"...) }
	cases := []struct {
		name string
		b    []byte
		read func(*Reader)
	}{
		{"byte of nothing", nil, func(r *Reader) { r.Byte() }},
		{"uvarint of nothing", nil, func(r *Reader) { r.Uvarint() }},
		{"unterminated varint", []byte{0x80, 0x80}, func(r *Reader) { r.Varint() }},
		{"short float", []byte{1, 2, 3}, func(r *Reader) { r.Float() }},
		{"string longer than the rest", long(), func(r *Reader) { r.Str() }},
		{"count more than the rest holds", long(), func(r *Reader) { r.Count() }},
		{"count of 8-byte records", []byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0}, func(r *Reader) { r.CountOf(8) }},
	}
	for _, c := range cases {
		r := Reader{B: c.b, Corrupt: errBad}
		c.read(&r)
		if r.Err != errBad || r.B != nil {
			t.Errorf("%s: err %v, %d bytes left", c.name, r.Err, len(r.B))
		}
		if r.Uvarint() != 0 || r.Str() != "" {
			t.Errorf("%s: a read after the failure gave a value", c.name)
		}
	}
}
