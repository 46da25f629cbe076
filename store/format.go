package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// The binary records inside call batches and trees: varints and
// length-prefixed strings, a version byte first. Decoding checks every
// length against what is left, so a corrupt value is an error, not a panic.

const formatVersion = 1

type writer struct{ b []byte }

func (w *writer) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) varint(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *writer) float(v float64)  { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v)) }
func (w *writer) str(s string)     { w.uvarint(uint64(len(s))); w.b = append(w.b, s...) }

type reader struct {
	b   []byte
	err error
}

var errCorrupt = errors.New("corrupt stored record")

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
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

// count reads a number of records, each at least one byte long.
func (r *reader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) int() int { return int(r.varint()) }

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

// version checks the leading version byte.
func (r *reader) version() {
	if len(r.b) == 0 {
		r.fail()
		return
	}
	if r.b[0] != formatVersion {
		r.err = fmt.Errorf("stored record version %d; upgrade bench", r.b[0])
		r.b = nil
		return
	}
	r.b = r.b[1:]
}

// done is the first error, or one if bytes are left over.
func (r *reader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errCorrupt
	}
	return r.err
}

// callRecord is a call as a batch holds it: its text by blob id.
type callRecord struct {
	ID               int64
	Purpose          string
	Request          int64 // blob ids
	Response         int64
	PromptTokens     int
	CompletionTokens int
	ReasoningTokens  int
	Requests         int
	Cost             float64
	LatencyUS        int64
	CacheHit         bool
	Error            string
	Created          int64 // Unix nanoseconds
	NoCreated        bool  // no time recorded (a zero time)
}

// flags of a call record
const (
	recHit       = 1 << iota // a cache hit
	recCost                  // a float64 cost follows
	recError                 // an error string follows
	recNoCreated             // no creation time
)

// encodeCalls writes records in ascending id order. Ids, blob ids and times
// are deltas from the previous record, so a batch of one item's calls costs
// a few bytes a call.
func encodeCalls(recs []callRecord) []byte {
	w := writer{b: make([]byte, 0, 16*len(recs)+8)}
	w.b = append(w.b, formatVersion)
	w.uvarint(uint64(len(recs)))
	var prev callRecord
	for _, c := range recs {
		var flags uint64
		if c.CacheHit {
			flags |= recHit
		}
		if c.Cost != 0 || math.Signbit(c.Cost) {
			flags |= recCost
		}
		if c.Error != "" {
			flags |= recError
		}
		if c.NoCreated {
			flags |= recNoCreated
		}
		w.uvarint(flags)
		w.varint(c.ID - prev.ID)
		w.str(c.Purpose)
		w.varint(c.Request - prev.Request)
		w.varint(c.Response - prev.Response)
		w.varint(int64(c.PromptTokens))
		w.varint(int64(c.CompletionTokens))
		w.varint(int64(c.ReasoningTokens))
		w.varint(int64(c.Requests))
		if flags&recCost != 0 {
			w.float(c.Cost)
		}
		w.varint(c.LatencyUS)
		if flags&recError != 0 {
			w.str(c.Error)
		}
		if !c.NoCreated {
			w.varint(c.Created - prev.Created)
			prev.Created = c.Created
		}
		prev.ID, prev.Request, prev.Response = c.ID, c.Request, c.Response
	}
	return w.b
}

// decodeCalls reads what encodeCalls wrote.
func decodeCalls(b []byte) ([]callRecord, error) {
	r := reader{b: b}
	r.version()
	n := r.count()
	recs := make([]callRecord, 0, n)
	var prev callRecord
	for range n {
		var c callRecord
		flags := r.uvarint()
		c.CacheHit = flags&recHit != 0
		c.ID = prev.ID + r.varint()
		c.Purpose = r.str()
		c.Request = prev.Request + r.varint()
		c.Response = prev.Response + r.varint()
		c.PromptTokens = r.int()
		c.CompletionTokens = r.int()
		c.ReasoningTokens = r.int()
		c.Requests = r.int()
		if flags&recCost != 0 {
			c.Cost = r.float()
		}
		c.LatencyUS = r.varint()
		if flags&recError != 0 {
			c.Error = r.str()
		}
		c.NoCreated = flags&recNoCreated != 0
		if !c.NoCreated {
			c.Created = prev.Created + r.varint()
			prev.Created = c.Created
		}
		if r.err != nil {
			return nil, r.err
		}
		prev.ID, prev.Request, prev.Response = c.ID, c.Request, c.Response
		recs = append(recs, c)
	}
	return recs, r.done()
}

// createdAt converts a record's time.
func (c callRecord) createdAt() time.Time {
	if c.NoCreated {
		return time.Time{}
	}
	return time.Unix(0, c.Created).UTC()
}

// encodeNodes writes a search tree.
func encodeNodes(nodes []Node) []byte {
	w := writer{b: make([]byte, 0, 64*len(nodes)+8)}
	w.b = append(w.b, formatVersion)
	w.uvarint(uint64(len(nodes)))
	for _, n := range nodes {
		var flags uint64
		if n.Selected {
			flags |= 1
		}
		if n.Pruned {
			flags |= 2
		}
		if n.Terminal {
			flags |= 4
		}
		w.varint(int64(n.ID))
		w.varint(int64(n.Parent))
		w.varint(int64(n.Depth))
		w.str(n.Thought)
		w.float(n.Value)
		w.uvarint(flags)
		w.varint(int64(n.Visits))
	}
	return w.b
}

// decodeNodes reads what encodeNodes wrote.
func decodeNodes(b []byte, runID int64, item int) ([]Node, error) {
	r := reader{b: b}
	r.version()
	n := r.count()
	out := make([]Node, 0, n)
	for range n {
		nd := Node{RunID: runID, Item: item}
		nd.ID = r.int()
		nd.Parent = r.int()
		nd.Depth = r.int()
		nd.Thought = r.str()
		nd.Value = r.float()
		flags := r.uvarint()
		nd.Selected, nd.Pruned, nd.Terminal = flags&1 != 0, flags&2 != 0, flags&4 != 0
		nd.Visits = r.int()
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, nd)
	}
	return out, r.done()
}
