package store

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/reasonbench/reasonbench/wire"
)

// The binary records inside call batches and trees: varints and
// length-prefixed strings, a version byte first. Decoding checks every
// length against what is left, so a corrupt value is an error, not a panic.

const formatVersion = 1

// reader is the format's wire.Reader with its version and end checks.
type reader struct{ wire.Reader }

var errCorrupt = errors.New("corrupt stored record")

func (r *reader) int() int { return int(r.Varint()) }

// version checks the leading version byte.
func (r *reader) version() {
	if len(r.B) == 0 {
		r.Fail()
		return
	}
	if r.B[0] != formatVersion {
		r.Err = fmt.Errorf("stored record version %d; upgrade bench", r.B[0])
		r.B = nil
		return
	}
	r.B = r.B[1:]
}

// done is the first error, or one if bytes are left over.
func (r *reader) done() error {
	if r.Err == nil && len(r.B) != 0 {
		r.Err = errCorrupt
	}
	return r.Err
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
	w := wire.Writer{B: make([]byte, 0, 16*len(recs)+8)}
	w.B = append(w.B, formatVersion)
	w.Uvarint(uint64(len(recs)))
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
		w.Uvarint(flags)
		w.Varint(c.ID - prev.ID)
		w.Str(c.Purpose)
		w.Varint(c.Request - prev.Request)
		w.Varint(c.Response - prev.Response)
		w.Varint(int64(c.PromptTokens))
		w.Varint(int64(c.CompletionTokens))
		w.Varint(int64(c.ReasoningTokens))
		w.Varint(int64(c.Requests))
		if flags&recCost != 0 {
			w.Float(c.Cost)
		}
		w.Varint(c.LatencyUS)
		if flags&recError != 0 {
			w.Str(c.Error)
		}
		if !c.NoCreated {
			w.Varint(c.Created - prev.Created)
			prev.Created = c.Created
		}
		prev.ID, prev.Request, prev.Response = c.ID, c.Request, c.Response
	}
	return w.B
}

// decodeCalls reads what encodeCalls wrote.
func decodeCalls(b []byte) ([]callRecord, error) {
	r := reader{wire.Reader{B: b, Corrupt: errCorrupt}}
	r.version()
	n := r.Count()
	recs := make([]callRecord, 0, n)
	var prev callRecord
	for range n {
		var c callRecord
		flags := r.Uvarint()
		c.CacheHit = flags&recHit != 0
		c.ID = prev.ID + r.Varint()
		c.Purpose = r.Str()
		c.Request = prev.Request + r.Varint()
		c.Response = prev.Response + r.Varint()
		c.PromptTokens = r.int()
		c.CompletionTokens = r.int()
		c.ReasoningTokens = r.int()
		c.Requests = r.int()
		if flags&recCost != 0 {
			c.Cost = r.Float()
		}
		c.LatencyUS = r.Varint()
		if flags&recError != 0 {
			c.Error = r.Str()
		}
		c.NoCreated = flags&recNoCreated != 0
		if !c.NoCreated {
			c.Created = prev.Created + r.Varint()
			prev.Created = c.Created
		}
		if r.Err != nil {
			return nil, r.Err
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
	w := wire.Writer{B: make([]byte, 0, 64*len(nodes)+8)}
	w.B = append(w.B, formatVersion)
	w.Uvarint(uint64(len(nodes)))
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
		w.Varint(int64(n.ID))
		w.Varint(int64(n.Parent))
		w.Varint(int64(n.Depth))
		w.Str(n.Thought)
		w.Float(n.Value)
		w.Uvarint(flags)
		w.Varint(int64(n.Visits))
	}
	return w.B
}

// decodeNodes reads what encodeNodes wrote.
func decodeNodes(b []byte, runID int64, item int) ([]Node, error) {
	r := reader{wire.Reader{B: b, Corrupt: errCorrupt}}
	r.version()
	n := r.Count()
	out := make([]Node, 0, n)
	for range n {
		nd := Node{RunID: runID, Item: item}
		nd.ID = r.int()
		nd.Parent = r.int()
		nd.Depth = r.int()
		nd.Thought = r.Str()
		nd.Value = r.Float()
		flags := r.Uvarint()
		nd.Selected, nd.Pruned, nd.Terminal = flags&1 != 0, flags&2 != 0, flags&4 != 0
		nd.Visits = r.int()
		if r.Err != nil {
			return nil, r.Err
		}
		out = append(out, nd)
	}
	return out, r.done()
}
