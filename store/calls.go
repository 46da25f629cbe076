package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"
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
}

// RecordCall appends a call.
func (s *Store) RecordCall(ctx context.Context, c Call) error {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = time.Now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO calls
		(run_id, item_idx, purpose, request, response, prompt_tokens, completion_tokens, reasoning_tokens, requests, cost, latency_ms, cache_hit, error, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.RunID, c.Item, c.Purpose, orEmptyObject(c.Request), orEmptyObject(c.Response), c.PromptTokens, c.CompletionTokens,
		c.ReasoningTokens, c.Requests, c.Cost, float64(c.Latency.Microseconds())/1000, c.CacheHit, c.Error, c.CreatedAt.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("record call for run %d item %d: %w", c.RunID, c.Item, err)
	}
	return nil
}

// Calls returns the calls of one item of a run (item < 0: all items), in order.
func (s *Store) Calls(ctx context.Context, runID int64, item int) ([]Call, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, run_id, item_idx, purpose, request, response, prompt_tokens,
		completion_tokens, reasoning_tokens, requests, cost, latency_ms, cache_hit, error, created_at FROM calls
		WHERE run_id = ? AND (? < 0 OR item_idx = ?) ORDER BY id`, runID, item, item)
	if err != nil {
		return nil, fmt.Errorf("calls of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Call
	for rows.Next() {
		var c Call
		var req, resp, created string
		var latencyMS float64
		if err := rows.Scan(&c.ID, &c.RunID, &c.Item, &c.Purpose, &req, &resp, &c.PromptTokens, &c.CompletionTokens,
			&c.ReasoningTokens, &c.Requests, &c.Cost, &latencyMS, &c.CacheHit, &c.Error, &created); err != nil {
			return nil, fmt.Errorf("calls of run %d: %w", runID, err)
		}
		c.Request, c.Response = json.RawMessage(req), json.RawMessage(resp)
		c.Latency = msToDuration(latencyMS)
		c.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, c)
	}
	return out, rows.Err()
}

// RunTotals sums the usage recorded for a run's calls.
type RunTotals struct {
	Calls, Requests, PromptTokens, CompletionTokens, ReasoningTokens int
	Cost                                                             float64
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
	err := s.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(requests),0), COALESCE(sum(prompt_tokens),0),
		COALESCE(sum(completion_tokens),0), COALESCE(sum(reasoning_tokens),0), COALESCE(sum(cost),0)
		FROM calls WHERE run_id = ? AND (? < 0 OR item_idx = ?)`,
		runID, item, item).Scan(&t.Calls, &t.Requests, &t.PromptTokens, &t.CompletionTokens, &t.ReasoningTokens, &t.Cost)
	if err != nil {
		return t, fmt.Errorf("totals of run %d: %w", runID, err)
	}
	return t, nil
}

// msToDuration reads a latency stored in milliseconds with microsecond
// resolution, rounding so that a value survives any number of round trips.
func msToDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms*1000)) * time.Microsecond
}
