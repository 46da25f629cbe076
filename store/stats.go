package store

import (
	"context"
	"fmt"
)

// CacheSavings is what the response cache saved a run: the calls answered
// from it, with the tokens and cost they took when first made.
type CacheSavings struct {
	Hits             int
	PromptTokens     int
	CompletionTokens int
	Cost             float64
}

// Tokens is the prompt and completion tokens saved.
func (c CacheSavings) Tokens() int { return c.PromptTokens + c.CompletionTokens }

// CacheSavings sums a run's calls with cache_hit set.
func (s *Store) CacheSavings(ctx context.Context, runID int64) (CacheSavings, error) {
	var c CacheSavings
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(sum(hits),0), COALESCE(sum(hit_prompt_tokens),0), COALESCE(sum(hit_completion_tokens),0),
		COALESCE(sum(hit_cost),0) FROM call_batches WHERE run_id = ?`, runID).
		Scan(&c.Hits, &c.PromptTokens, &c.CompletionTokens, &c.Cost)
	if err != nil {
		return c, fmt.Errorf("cache savings of run %d: %w", runID, err)
	}
	if c.Cost != 0 {
		if c.Cost, err = s.sumCost(ctx, `WHERE run_id = ?`, []any{runID}, true); err != nil {
			return c, fmt.Errorf("cache savings of run %d: %w", runID, err)
		}
	}
	return c, nil
}
