package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/events"
)

// Call is one sampler call as recorded: what was asked, what came back.
type Call struct {
	ID               int64
	RunID            int64
	Item             int
	Purpose          string
	Request          json.RawMessage
	Response         json.RawMessage
	PromptTokens     int
	CompletionTokens int
	ReasoningTokens  int // part of CompletionTokens
	Requests         int
	Cost             float64
	Latency          time.Duration
	CacheHit         bool
	Error            string
	CreatedAt        time.Time
	// Identity is the call's identity (llm.Request.Call), read from its
	// request. Role, Step and Seq are the rest of its event (events.Model):
	// the role that made it, its step and its place in a step the strategy
	// declared; stored in the batch's events, empty for calls recorded
	// before them (schema 11).
	Identity, Role, Step string
	Seq                  int
}

// event is the call's model-call event as stored: what its record lacks.
func (c Call) event() events.Event {
	return events.Event{Kind: events.Model, Step: c.Step, Seq: c.Seq, Call: c.Identity, Role: c.Role}
}

// Calls are stored in batches: one row of call_batches holds the calls of one
// item made between two flushes (the item's end, or a checkpoint), as
// records that name their request and response by blob id, with the batch's
// sums in columns for totals. Call ids are allocated per batch, in order.

// CallLog collects the calls of one item of a run and stores them together
// on Flush, in one transaction: one row per item instead of one per call,
// which is what makes a rerun from the cache cheap. Calls not yet flushed
// are lost if the process dies, so the engine flushes every call a model
// over HTTP answered at once; a resume redoes the item anyway.
type CallLog struct {
	st   *Store
	run  int64
	item int

	mu      sync.Mutex
	pending []pendingCall
	events  events.Log // the item's other events, stored with the calls
}

type pendingCall struct {
	Call
	req, resp int64 // blob ids the memo knew; 0: found or stored on flush
	gen       int64 // the memo's generation when they were looked up
}

// CallLog returns an empty log for an item of a run.
func (s *Store) CallLog(runID int64, item int) *CallLog {
	return &CallLog{st: s, run: runID, item: item}
}

// Events is the log of the item's events other than its model calls
// (whose events are their calls' Role, Identity, Step and Seq): stored
// with the calls on Flush.
func (l *CallLog) Events() *events.Log { return &l.events }

// Add appends a call to the log. It does not touch the database.
func (l *CallLog) Add(c Call) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = time.Now()
	}
	c.RunID, c.Item = l.run, l.item
	if len(c.Request) == 0 {
		c.Request = json.RawMessage("{}")
	}
	if len(c.Response) == 0 {
		c.Response = json.RawMessage("{}")
	}
	p := pendingCall{Call: c}
	_, sum := contentHash(c.Request)
	p.req, p.gen = l.st.memo.get(sum)
	_, sum = contentHash(c.Response)
	var gen int64
	if p.resp, gen = l.st.memo.get(sum); gen != p.gen {
		p.req, p.resp = 0, 0
	}
	l.mu.Lock()
	l.pending = append(l.pending, p)
	l.mu.Unlock()
}

// Flush stores the calls and events added since the last flush, as one
// batch. On failure they stay in the log.
func (l *CallLog) Flush(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	evs := l.events.Take()
	if len(l.pending) == 0 && len(evs) == 0 {
		return nil
	}
	if err := l.st.storeCalls(ctx, l.run, l.item, l.pending, evs); err != nil {
		l.events.Return(evs)
		return fmt.Errorf("record calls of run %d item %d: %w", l.run, l.item, err)
	}
	l.pending = nil
	return nil
}

// RecordCall stores one call at once, as a batch of its own.
func (s *Store) RecordCall(ctx context.Context, c Call) error {
	l := s.CallLog(c.RunID, c.Item)
	l.Add(c)
	return l.Flush(ctx)
}

// storeCalls writes one batch: the calls and the item's events since the
// last one.
func (s *Store) storeCalls(ctx context.Context, runID int64, item int, calls []pendingCall, evs []events.Event) error {
	w, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer w.Rollback()
	var last int64
	if err := s.queryRow(ctx, w, qLastCall).Scan(&last); err != nil {
		return err
	}
	gen := s.memo.generation()
	recs := make([]callRecord, len(calls))
	for i, c := range calls {
		req, resp := c.req, c.resp
		if c.gen != gen { // blobs were collected since: the ids may be gone
			req, resp = 0, 0
		}
		if req == 0 {
			if req, err = w.putBlob(ctx, c.Request); err != nil {
				return err
			}
		}
		if resp == 0 {
			if resp, err = w.putBlob(ctx, c.Response); err != nil {
				return err
			}
		}
		recs[i] = newCallRecord(c.Call, last+int64(i)+1, req, resp)
	}
	if err := s.insertBatch(ctx, w, runID, item, last+int64(max(len(recs), 1)), recs, batchEvents(calls, evs)); err != nil {
		return err
	}
	return w.commit()
}

// batchEvents is a batch's events as stored: one model-call event per
// call, in the calls' order, then the other events in their order
// (events.Compare), so that a batch's bytes do not depend on the order
// they arrived in.
func batchEvents(calls []pendingCall, evs []events.Event) []byte {
	all := make([]events.Event, 0, len(calls)+len(evs))
	for _, c := range calls {
		all = append(all, c.event())
	}
	rest := slices.Clone(evs)
	slices.SortStableFunc(rest, events.Compare)
	return events.Encode(append(all, rest...))
}

// newCallRecord is a call as a batch holds it.
func newCallRecord(c Call, id, req, resp int64) callRecord {
	r := callRecord{ID: id, Purpose: c.Purpose, Request: req, Response: resp, PromptTokens: c.PromptTokens,
		CompletionTokens: c.CompletionTokens, ReasoningTokens: c.ReasoningTokens, Requests: c.Requests, Cost: c.Cost,
		LatencyUS: c.Latency.Microseconds(), CacheHit: c.CacheHit, Error: c.Error}
	if c.CreatedAt.IsZero() {
		r.NoCreated = true
	} else {
		r.Created = c.CreatedAt.UnixNano()
	}
	return r
}

// insertBatch stores records (ascending ids, all above every stored call id)
// with their sums, and the batch's events (nil: none, as in batches
// written before schema 12). last is the batch's id: its last call's, or
// for a batch of events alone an id of its own above every stored one.
func (s *Store) insertBatch(ctx context.Context, q querier, runID int64, item int, last int64, recs []callRecord, evs []byte) error {
	var t, hits RunTotals
	for _, c := range recs {
		u := RunTotals{Calls: 1, Requests: c.Requests, PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens,
			ReasoningTokens: c.ReasoningTokens, Cost: c.Cost}
		t = t.add(u)
		if c.CacheHit {
			hits = hits.add(u)
		}
	}
	data, err := s.encode(encodeCalls(recs))
	if err != nil {
		return err
	}
	if len(recs) > 0 {
		last = recs[len(recs)-1].ID
	}
	args := []any{last, runID, item, t.Calls, t.Requests, t.PromptTokens, t.CompletionTokens, t.ReasoningTokens, t.Cost,
		hits.Calls, hits.PromptTokens, hits.CompletionTokens, hits.Cost, data}
	query := qBatchPut
	if evs != nil {
		stored, err := s.encode(evs)
		if err != nil {
			return err
		}
		query, args = qBatchPutEvents, append(args, stored)
	}
	_, err = s.exec(ctx, q, query, args...)
	if err != nil {
		return fmt.Errorf("store call batch: %w", err)
	}
	return nil
}

// Calls returns the calls of one item of a run (item < 0: all items), in
// id order, with their requests and responses in full.
func (s *Store) Calls(ctx context.Context, runID int64, item int) ([]Call, error) {
	var batches []batchRow
	err := s.eachBatchRow(ctx, s.db, `WHERE run_id = ? AND (? < 0 OR item_idx = ?)`, []any{runID, item, item}, true,
		func(b batchRow) error {
			batches = append(batches, b)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("calls of run %d: %w", runID, err)
	}
	var ids []int64
	for _, b := range batches {
		for _, r := range b.recs {
			ids = append(ids, r.Request, r.Response)
		}
	}
	texts, err := s.readBlobs(ctx, s.db, ids)
	if err != nil {
		return nil, fmt.Errorf("calls of run %d: %w", runID, err)
	}
	var out []Call
	for _, b := range batches {
		for _, r := range b.recs {
			c := Call{ID: r.ID, RunID: runID, Item: b.item, Purpose: r.Purpose,
				Request: texts[r.Request], Response: texts[r.Response], PromptTokens: r.PromptTokens,
				CompletionTokens: r.CompletionTokens, ReasoningTokens: r.ReasoningTokens, Requests: r.Requests, Cost: r.Cost,
				Latency: time.Duration(r.LatencyUS) * time.Microsecond, CacheHit: r.CacheHit, Error: r.Error,
				CreatedAt: r.createdAt()}
			c.Identity = requestIdentity(c.Request)
			out = append(out, c)
		}
		if !b.hasEvents {
			continue
		}
		evs, err := events.Decode(b.events, identities(out[len(out)-len(b.recs):]))
		if err != nil {
			return nil, fmt.Errorf("events of run %d item %d: %w", runID, b.item, err)
		}
		for i := range b.recs {
			c := &out[len(out)-len(b.recs)+i]
			c.Role, c.Step, c.Seq = evs[i].Role, evs[i].Step, evs[i].Seq
		}
	}
	slices.SortFunc(out, func(a, b Call) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// eachBatch decodes the call batches a WHERE clause selects.
func (s *Store) eachBatch(ctx context.Context, q querier, where string, args []any, fn func(runID int64, item int, recs []callRecord) error) error {
	return s.eachBatchRow(ctx, q, where, args, false, func(b batchRow) error { return fn(b.run, b.item, b.recs) })
}

// batchRow is one call batch decoded: its calls and, when read, its
// events as stored (events.Encode: the first len(recs) the calls' own, in
// their order).
type batchRow struct {
	run       int64
	item      int
	last      int64
	recs      []callRecord
	hasEvents bool // the batch was written with events (schema 12)
	events    []byte
}

// requestIdentity is the identity a recorded request names (llm.Request's
// call), "" for none.
func requestIdentity(request json.RawMessage) string {
	var r struct {
		Call string `json:"call"`
	}
	_ = json.Unmarshal(request, &r)
	return r.Call
}

// identities are calls' identities, in order.
func identities(calls []Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Identity
	}
	return out
}

// eachBatchRow decodes the call batches a WHERE clause selects, with
// their events if withEvents.
func (s *Store) eachBatchRow(ctx context.Context, q querier, where string, args []any, withEvents bool, fn func(batchRow) error) error {
	cols := `run_id, item_idx, last_id, data, NULL`
	if withEvents {
		cols = `run_id, item_idx, last_id, data, events`
	}
	rows, err := q.QueryContext(ctx, `SELECT `+cols+` FROM call_batches `+where, args...)
	if err != nil {
		return err
	}
	type raw struct {
		run, last  int64
		item       int
		data, evts []byte
	}
	var all []raw
	for rows.Next() {
		var r raw
		if err := rows.Scan(&r.run, &r.item, &r.last, &r.data, &r.evts); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Decoded after the rows are closed: decoding may read dictionaries
	// through the store's one connection.
	for _, r := range all {
		b, err := s.decode(ctx, q, r.data)
		if err != nil {
			return fmt.Errorf("call batch of run %d item %d: %w", r.run, r.item, err)
		}
		recs, err := decodeCalls(b)
		if err != nil {
			return fmt.Errorf("call batch of run %d item %d: %w", r.run, r.item, err)
		}
		row := batchRow{run: r.run, item: r.item, last: r.last, recs: recs}
		if r.evts != nil {
			if row.events, err = s.decode(ctx, q, r.evts); err != nil {
				return fmt.Errorf("events of run %d item %d: %w", r.run, r.item, err)
			}
			row.hasEvents = true
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

// RunTotals sums the usage recorded for a run's calls.
type RunTotals struct {
	Calls, Requests, PromptTokens, CompletionTokens, ReasoningTokens int
	Cost                                                             float64
}

func (t RunTotals) add(u RunTotals) RunTotals {
	return RunTotals{Calls: t.Calls + u.Calls, Requests: t.Requests + u.Requests, PromptTokens: t.PromptTokens + u.PromptTokens,
		CompletionTokens: t.CompletionTokens + u.CompletionTokens, ReasoningTokens: t.ReasoningTokens + u.ReasoningTokens,
		Cost: t.Cost + u.Cost}
}

// Totals sums a run's recorded calls.
func (s *Store) Totals(ctx context.Context, runID int64) (RunTotals, error) {
	return s.totals(ctx, runID, -1)
}

// ItemTotals sums the recorded calls of one item of a run, including those
// of trials completed before a resume.
func (s *Store) ItemTotals(ctx context.Context, runID int64, item int) (RunTotals, error) {
	return s.totals(ctx, runID, item)
}

// totals sums calls of a run, of one item when item >= 0.
func (s *Store) totals(ctx context.Context, runID int64, item int) (RunTotals, error) {
	var t RunTotals
	err := s.queryRow(ctx, s.db, qTotals, runID, item, item).Scan(&t.Calls, &t.Requests, &t.PromptTokens, &t.CompletionTokens, &t.ReasoningTokens, &t.Cost)
	if err != nil {
		return t, fmt.Errorf("totals of run %d: %w", runID, err)
	}
	if t.Cost != 0 {
		t.Cost, err = s.sumCost(ctx, `WHERE run_id = ? AND (? < 0 OR item_idx = ?)`, []any{runID, item, item}, false)
		if err != nil {
			return t, fmt.Errorf("totals of run %d: %w", runID, err)
		}
	}
	return t, nil
}

// sumCost adds up the cost of the calls in the selected batches (only the
// cache hits if hits is set) one by one, in item and id order, with
// Neumaier's compensated summation: what SQLite's sum() gave over the
// per-call rows of schema 8, so that a migrated run's cost is the same to the
// last bit. The batch sums are the same figure up to rounding.
func (s *Store) sumCost(ctx context.Context, where string, args []any, hits bool) (float64, error) {
	var sum, comp float64
	err := s.eachBatch(ctx, s.db, where+` ORDER BY item_idx, last_id`, args, func(_ int64, _ int, recs []callRecord) error {
		for _, c := range recs {
			if hits && !c.CacheHit {
				continue
			}
			t := sum + c.Cost
			if math.Abs(sum) > math.Abs(c.Cost) {
				comp += (sum - t) + c.Cost
			} else {
				comp += (c.Cost - t) + sum
			}
			sum = t
		}
		return nil
	})
	if math.IsInf(comp, 0) || math.IsNaN(comp) {
		return sum, err
	}
	return sum + comp, err
}

// msToDuration reads a latency stored in milliseconds with microsecond
// resolution, rounding so that a value survives any number of round trips.
func msToDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms*1000)) * time.Microsecond
}
