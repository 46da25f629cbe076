package store

import (
	"context"
	"fmt"
)

// PurposeTotals sums a run's recorded calls per item and purpose from the
// batches' call records alone (no request or response text is read), for
// reports that split an item's budget by what the calls were for (bench
// report --by budget: generated tokens apart from verifier tokens). Cache
// hits count: a budget is what the method asks for, not what this database
// happened to have.
func (s *Store) PurposeTotals(ctx context.Context, runID int64) (map[int]map[string]RunTotals, error) {
	out := map[int]map[string]RunTotals{}
	err := s.eachBatch(ctx, s.db, `WHERE run_id = ?`, []any{runID}, func(_ int64, item int, recs []callRecord) error {
		m := out[item]
		if m == nil {
			m = map[string]RunTotals{}
			out[item] = m
		}
		for _, c := range recs {
			m[c.Purpose] = m[c.Purpose].add(RunTotals{Calls: 1, Requests: c.Requests, PromptTokens: c.PromptTokens,
				CompletionTokens: c.CompletionTokens, ReasoningTokens: c.ReasoningTokens, Cost: c.Cost})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("calls by purpose of run %d: %w", runID, err)
	}
	return out, nil
}
