package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/reasonbench/reasonbench/events"
)

// ItemEvents returns the events of one item of a run in the item's order
// (events.Compare: by step, then as a declared step's events happened,
// never by when they arrived), its model calls' events joined with their
// call records (tokens, cost, latency, cache hit, error). An item recorded
// before events (schema 11) has none.
func (s *Store) ItemEvents(ctx context.Context, runID int64, item int) ([]events.Event, error) {
	all, err := s.events(ctx, runID, item)
	if err != nil {
		return nil, err
	}
	return all[item], nil
}

// RunEvents returns the events of every item of a run, by item index, each
// item's in its order (see ItemEvents).
func (s *Store) RunEvents(ctx context.Context, runID int64) (map[int][]events.Event, error) {
	return s.events(ctx, runID, -1)
}

func (s *Store) events(ctx context.Context, runID int64, item int) (map[int][]events.Event, error) {
	out := map[int][]events.Event{}
	err := s.eachBatchRow(ctx, s.db, `WHERE run_id = ? AND (? < 0 OR item_idx = ?) ORDER BY last_id`, []any{runID, item, item}, true,
		func(b batchRow) error {
			if !b.hasEvents {
				return nil
			}
			evs := out[b.item]
			for i, r := range b.recs {
				e := b.events[i]
				e.CallID, e.Purpose = r.ID, r.Purpose
				e.PromptTokens, e.CompletionTokens, e.ReasoningTokens = r.PromptTokens, r.CompletionTokens, r.ReasoningTokens
				e.Requests, e.Cost, e.LatencyMS, e.Cached, e.Error = r.Requests, r.Cost, float64(r.LatencyUS)/1000, r.CacheHit, r.Error
				evs = append(evs, e)
			}
			out[b.item] = append(evs, b.events[len(b.recs):]...)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("events of run %d: %w", runID, err)
	}
	for _, evs := range out {
		slices.SortStableFunc(evs, events.Compare)
	}
	return out, nil
}
