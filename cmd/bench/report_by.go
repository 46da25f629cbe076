package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/store"
)

// Views of `bench report --by`.
const (
	byTrial     = "trial"     // Reflexion: accuracy after each trial
	byIteration = "iteration" // Self-Refine: accuracy after each iteration
)

// writeSeriesReport writes one row per (run, trial) or (run, iteration)
// with the accuracy after it, for the selected runs that have the series.
func writeSeriesReport(ctx context.Context, st *store.Store, runs []store.Run, by, format string, stdout io.Writer) error {
	if by != byTrial && by != byIteration {
		return usageError{fmt.Errorf("--by %q: want %s or %s", by, byTrial, byIteration)}
	}
	var rows []report.SeriesRow
	for _, r := range runs {
		s, err := bench.Summarize(ctx, st, r.ID)
		if err != nil {
			return err
		}
		rows = append(rows, seriesRows(s, by)...)
	}
	if len(rows) == 0 {
		return usageError{fmt.Errorf("--by %s: no selected run has a per-%s series (reflexion runs have trials, selfrefine runs iterations)", by, by)}
	}
	if err := report.WriteSeries(stdout, format, by, rows); err != nil {
		return usageError{err}
	}
	return nil
}

// seriesRows lays out a run summary's per-trial or per-iteration series.
func seriesRows(s bench.Summary, by string) []report.SeriesRow {
	acc, ran := s.PerTrial, s.PerTrialRan
	if by == byIteration {
		acc, ran = s.PerIteration, s.PerIterationRan
	}
	row := rowOf(s)
	out := make([]report.SeriesRow, len(acc))
	for i, a := range acc {
		r := report.SeriesRow{RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: row.Params, Model: s.Model,
			Simulated: s.Simulated, Status: s.Status, N: s.N, Step: i + 1, Accuracy: a}
		if i < len(ran) {
			r.Ran = int(math.Round(ran[i] * float64(s.N)))
		}
		if i > 0 {
			r.Gain = a - acc[i-1]
		}
		out[i] = r
	}
	return out
}
