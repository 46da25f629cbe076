package events

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The stored form: a version byte, a count, then each event as varints and
// length-prefixed strings. A model call's event keeps only what its call
// record lacks: its role, and its step and sequence number when the
// strategy declared the step (its identity is in the call's request); a
// step equal to its call's step and a role or server equal to the
// previous event's are a flag bit. Decoding checks every length against what is left, so a
// corrupt value is an error, never a panic.

const version = 1

// flags of a stored event
const (
	fStepOfCall = 1 << iota // Step is StepOfCall(Call): not stored
	fSameRole               // Role is the previous model event's
	fSameServer             // Server is the previous tool event's
	fCached                 // Cached (tool calls)
	fError                  // an error string follows
	fCorrect                // Correct (verdicts)
)

// Encode writes events in the stored form.
func Encode(evs []Event) []byte {
	w := writer{b: make([]byte, 0, 24*len(evs)+8)}
	w.b = append(w.b, version)
	w.uvarint(uint64(len(evs)))
	var role, server string
	for _, e := range evs {
		var flags uint64
		if e.Step == StepOfCall(e.Call) {
			flags |= fStepOfCall
		}
		switch e.Kind {
		case Model:
			if e.Role == role {
				flags |= fSameRole
			}
		case Tool:
			if e.Server == server {
				flags |= fSameServer
			}
			if e.Cached {
				flags |= fCached
			}
		case Verdict:
			if e.Correct {
				flags |= fCorrect
			}
		}
		if e.Error != "" && e.Kind != Model {
			flags |= fError
		}
		w.b = append(w.b, byte(e.Kind))
		w.uvarint(flags)
		if flags&fStepOfCall == 0 {
			w.str(e.Step)
		}
		w.uvarint(uint64(max(e.Seq, 0)))
		if e.Kind != Model {
			w.str(e.Call)
		}
		switch e.Kind {
		case Model:
			if flags&fSameRole == 0 {
				w.str(e.Role)
			}
			role = e.Role
		case Tool:
			if flags&fSameServer == 0 {
				w.str(e.Server)
			}
			server = e.Server
			w.str(e.Tool)
			w.str(string(e.Arguments))
			w.str(e.Result)
			w.varint(int64(math.Round(e.LatencyMS * 1000)))
		case User:
			w.str(e.Text)
		case Verifier:
			w.uvarint(uint64(len(e.Scores)))
			for _, s := range e.Scores {
				w.float(s)
			}
		case Verdict:
			w.float(e.Score)
			w.str(e.Answer)
		}
		if flags&fError != 0 {
			w.str(e.Error)
		}
	}
	return w.b
}

// ErrCorrupt is the error of stored events that do not decode.
var ErrCorrupt = errors.New("corrupt stored events")

// Decode reads what Encode wrote. A model call's event comes back with
// only what Encode keeps of it, and the identity calls gives it: calls[i]
// is the i-th model call's (from its request), nil when unknown.
func Decode(b []byte, calls []string) ([]Event, error) {
	r := reader{b: b}
	if len(r.b) == 0 {
		return nil, ErrCorrupt
	}
	if r.b[0] != version {
		return nil, fmt.Errorf("stored events version %d; upgrade bench", r.b[0])
	}
	r.b = r.b[1:]
	n := r.count()
	out := make([]Event, 0, n)
	var role, server string
	models := 0
	for range n {
		var e Event
		e.Kind = Kind(r.byte())
		if r.err == nil && !e.Kind.valid() {
			return nil, ErrCorrupt
		}
		flags := r.uvarint()
		if e.Kind == Model && flags&fError != 0 {
			return nil, ErrCorrupt // a model call's error is its call record's
		}
		stepOfCall := flags&fStepOfCall != 0
		if !stepOfCall {
			e.Step = r.str()
		}
		e.Seq = r.int()
		if e.Kind != Model {
			e.Call = r.str()
		} else if models < len(calls) {
			e.Call = calls[models]
		}
		if e.Kind == Model {
			models++
		}
		if stepOfCall {
			e.Step = StepOfCall(e.Call)
		}
		switch e.Kind {
		case Model:
			if flags&fSameRole != 0 {
				e.Role = role
			} else {
				e.Role = r.str()
			}
			role = e.Role
		case Tool:
			if flags&fSameServer != 0 {
				e.Server = server
			} else {
				e.Server = r.str()
			}
			server = e.Server
			e.Tool = r.str()
			if a := r.str(); a != "" {
				e.Arguments = []byte(a)
			}
			e.Result = r.str()
			e.LatencyMS = float64(r.varint()) / 1000
			e.Cached = flags&fCached != 0
		case User:
			e.Text = r.str()
		case Verifier:
			k := r.countOf(8)
			if k > 0 {
				e.Scores = make([]float64, k)
				for i := range e.Scores {
					e.Scores[i] = r.float()
				}
			}
		case Verdict:
			e.Score = r.float()
			e.Answer = r.str()
			e.Correct = flags&fCorrect != 0
		}
		if flags&fError != 0 {
			e.Error = r.str()
		}
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, e)
	}
	if r.err == nil && len(r.b) != 0 {
		return nil, ErrCorrupt
	}
	return out, r.err
}

type writer struct{ b []byte }

func (w *writer) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) varint(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *writer) float(v float64)  { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v)) }
func (w *writer) str(s string)     { w.uvarint(uint64(len(s))); w.b = append(w.b, s...) }

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = ErrCorrupt
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a small non-negative number.
func (r *reader) int() int {
	v := r.uvarint()
	if v > math.MaxInt32 {
		r.fail()
		return 0
	}
	return int(v)
}

// count reads a number of records, each at least one byte long.
func (r *reader) count() int { return r.countOf(1) }

// countOf reads a number of records of at least size bytes each.
func (r *reader) countOf(size int) int {
	v := r.uvarint()
	if v > uint64(len(r.b)/size) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) float() float64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *reader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
