package bench

import (
	"context"

	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/store"
)

// Summary is a run's headline numbers (runinfo.Summary, which the read
// side uses without the engine).
type Summary = runinfo.Summary

// Summarize computes a run's summary from the store (runinfo.Summarize).
func Summarize(ctx context.Context, st *store.Store, runID int64) (Summary, error) {
	return runinfo.Summarize(ctx, st, Catalog{}, runID)
}
