package bench

import (
	"context"

	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/summary"
)

// Summary is a run's headline numbers (summary.Summary, which the read
// side uses without the engine).
type Summary = summary.Summary

// Summarize computes a run's summary from the store (summary.Summarize).
func Summarize(ctx context.Context, st *store.Store, runID int64) (Summary, error) {
	return summary.Summarize(ctx, st, Catalog{}, runID)
}
