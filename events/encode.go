package events

import (
	"errors"
	"fmt"
	"math"

	"github.com/reasonbench/reasonbench/wire"
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
	w := wire.Writer{B: make([]byte, 0, 24*len(evs)+8)}
	w.B = append(w.B, version)
	w.Uvarint(uint64(len(evs)))
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
		w.B = append(w.B, byte(e.Kind))
		w.Uvarint(flags)
		if flags&fStepOfCall == 0 {
			w.Str(e.Step)
		}
		w.Uvarint(uint64(max(e.Seq, 0)))
		if e.Kind != Model {
			w.Str(e.Call)
		}
		switch e.Kind {
		case Model:
			if flags&fSameRole == 0 {
				w.Str(e.Role)
			}
			role = e.Role
		case Tool:
			if flags&fSameServer == 0 {
				w.Str(e.Server)
			}
			server = e.Server
			w.Str(e.Tool)
			w.Str(string(e.Arguments))
			w.Str(e.Result)
			w.Varint(int64(math.Round(e.LatencyMS * 1000)))
		case User:
			w.Str(e.Text)
		case Verifier:
			w.Uvarint(uint64(len(e.Scores)))
			for _, s := range e.Scores {
				w.Float(s)
			}
		case Verdict:
			w.Float(e.Score)
			w.Str(e.Answer)
		}
		if flags&fError != 0 {
			w.Str(e.Error)
		}
	}
	return w.B
}

// ErrCorrupt is the error of stored events that do not decode.
var ErrCorrupt = errors.New("corrupt stored events")

// Decode reads what Encode wrote. A model call's event comes back with
// only what Encode keeps of it, and the identity calls gives it: calls[i]
// is the i-th model call's (from its request), nil when unknown.
func Decode(b []byte, calls []string) ([]Event, error) {
	r := reader{wire.Reader{B: b, Corrupt: ErrCorrupt}}
	if len(r.B) == 0 {
		return nil, ErrCorrupt
	}
	if r.B[0] != version {
		return nil, fmt.Errorf("stored events version %d; upgrade bench", r.B[0])
	}
	r.B = r.B[1:]
	n := r.Count()
	out := make([]Event, 0, n)
	var role, server string
	models := 0
	for range n {
		var e Event
		e.Kind = Kind(r.Byte())
		if r.Err == nil && !e.Kind.valid() {
			return nil, ErrCorrupt
		}
		flags := r.Uvarint()
		if e.Kind == Model && flags&fError != 0 {
			return nil, ErrCorrupt // a model call's error is its call record's
		}
		stepOfCall := flags&fStepOfCall != 0
		if !stepOfCall {
			e.Step = r.Str()
		}
		e.Seq = r.int()
		if e.Kind != Model {
			e.Call = r.Str()
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
				e.Role = r.Str()
			}
			role = e.Role
		case Tool:
			if flags&fSameServer != 0 {
				e.Server = server
			} else {
				e.Server = r.Str()
			}
			server = e.Server
			e.Tool = r.Str()
			if a := r.Str(); a != "" {
				e.Arguments = []byte(a)
			}
			e.Result = r.Str()
			e.LatencyMS = float64(r.Varint()) / 1000
			e.Cached = flags&fCached != 0
		case User:
			e.Text = r.Str()
		case Verifier:
			k := r.CountOf(8)
			if k > 0 {
				e.Scores = make([]float64, k)
				for i := range e.Scores {
					e.Scores[i] = r.Float()
				}
			}
		case Verdict:
			e.Score = r.Float()
			e.Answer = r.Str()
			e.Correct = flags&fCorrect != 0
		}
		if flags&fError != 0 {
			e.Error = r.Str()
		}
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, e)
	}
	if r.Err == nil && len(r.B) != 0 {
		return nil, ErrCorrupt
	}
	return out, r.Err
}

// reader is wire.Reader with the events' bounded int.
type reader struct{ wire.Reader }

// int reads a small non-negative number.
func (r *reader) int() int {
	v := r.Uvarint()
	if v > math.MaxInt32 {
		r.Fail()
		return 0
	}
	return int(v)
}
