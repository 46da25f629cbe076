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
// call records (identity from the request, tokens, cost, latency, cache
// hit, error). An item recorded before events (schema 11) has none.
func (s *Store) ItemEvents(ctx context.Context, runID int64, item int) ([]events.Event, error) {
	all, err := s.events(ctx, runID, item, true)
	if err != nil {
		return nil, err
	}
	return all[item], nil
}

// RunEvents returns the events of every item of a run by item index, each
// item's in its order (see ItemEvents). Without models it leaves out the
// model calls' events, and reads no request.
func (s *Store) RunEvents(ctx context.Context, runID int64, models bool) (map[int][]events.Event, error) {
	return s.events(ctx, runID, -1, models)
}

func (s *Store) events(ctx context.Context, runID int64, item int, models bool) (map[int][]events.Event, error) {
	var batches []batchRow
	var ids []int64
	err := s.eachBatchRow(ctx, s.db, `WHERE run_id = ? AND (? < 0 OR item_idx = ?) ORDER BY last_id`, []any{runID, item, item}, true,
		func(b batchRow) error {
			if b.hasEvents {
				batches = append(batches, b)
				if models {
					for _, r := range b.recs {
						ids = append(ids, r.Request)
					}
				}
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("events of run %d: %w", runID, err)
	}
	texts, err := s.readBlobs(ctx, s.db, ids)
	if err != nil {
		return nil, fmt.Errorf("events of run %d: %w", runID, err)
	}
	out := map[int][]events.Event{}
	for _, b := range batches {
		var calls []string
		if models {
			calls = make([]string, len(b.recs))
			for i, r := range b.recs {
				calls[i] = requestIdentity(texts[r.Request])
			}
		}
		evs, err := events.Decode(b.events, calls)
		if err == nil && (len(evs) < len(b.recs) || slices.ContainsFunc(evs[:len(b.recs)], func(e events.Event) bool { return e.Kind != events.Model })) {
			err = events.ErrCorrupt
		}
		if err != nil {
			return nil, fmt.Errorf("events of run %d item %d: %w", runID, b.item, err)
		}
		kept := out[b.item]
		if models {
			for i, r := range b.recs {
				e := evs[i]
				e.CallID, e.Purpose, e.Time = r.ID, r.Purpose, r.createdAt()
				e.PromptTokens, e.CompletionTokens, e.ReasoningTokens = r.PromptTokens, r.CompletionTokens, r.ReasoningTokens
				e.Requests, e.Cost, e.LatencyMS, e.Cached, e.Error = r.Requests, r.Cost, float64(r.LatencyUS)/1000, r.CacheHit, r.Error
				kept = append(kept, e)
			}
		}
		out[b.item] = append(kept, evs[len(b.recs):]...)
	}
	for _, evs := range out {
		slices.SortStableFunc(evs, events.Compare)
	}
	return out, nil
}
