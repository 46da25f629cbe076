// Package results builds the rows every view of stored runs shows — bench
// report, export, compare, plot and the viewer — from the store: a run's
// report row, configurations (repeats pooled), paired comparisons with a
// baseline, vote curves over k' samples, and the gold and extracted answer
// beside each output. It sits between runinfo (one run's facts, which it
// reads) and render (which writes its rows as tables and plots). One
// place, so the CLI and the web pages agree.
package results

import (
	"context"
	"fmt"
	"maps"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// RowOf is the report row of a run summary, with the kind of its items'
// scores (0/1, or a mean over samples) that chooses its interval, as
// Compare chooses McNemar or the paired t by the same stats.Binary.
func RowOf(s runinfo.Summary) render.Row {
	metrics := maps.Clone(s.Metrics)
	if metrics == nil {
		metrics = map[string]float64{}
	}
	if _, ok := metrics["tool_calls"]; ok { // a run that called MCP tools: its count, not a mean
		metrics[runinfo.ToolFailuresMetric] = float64(s.ToolFailures)
	}
	for i, v := range s.PerTrial {
		metrics[fmt.Sprintf("%s%d", render.SeriesTrial, i+1)] = v
	}
	for i, v := range s.PerIteration {
		metrics[fmt.Sprintf("%s%d", render.SeriesIteration, i+1)] = v
	}
	kind := render.ScoreBinary
	if !stats.Binary(s.ItemScores) {
		kind = render.ScoreMean
	}
	_, sd := stats.MeanSD(s.ItemScores)
	return render.Row{
		ScoreKind: kind, ItemSD: sd,
		RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: s.ParamText,
		Model: s.Model, Simulated: s.Simulated, Status: s.Status, N: s.N, Accuracy: s.Accuracy, Metrics: metrics,
		Tokens: s.PromptTokens + s.CompletionTokens, Calls: s.Calls, Cost: s.Cost, WallSeconds: s.WallSeconds,
		Rule: s.Rule, RuleForgeable: s.RuleForgeable, Prompts: s.PromptPack, ModelParams: s.ModelParams,
		CompletionTokens: s.CompletionTokens, ReasoningTokens: s.ReasoningTokens,
	}
}

// Row summarizes one run into its full report row: the summary plus the
// experiment, seed, typed parameters, range, simulator parameters and what
// cache hits saved.
func Row(ctx context.Context, st *store.Store, cat runinfo.Catalog, r store.Run) (render.Row, runinfo.Summary, error) {
	s, err := runinfo.Summarize(ctx, st, cat, r.ID)
	if err != nil {
		return render.Row{}, s, err
	}
	row := RowOf(s)
	saved, err := st.CacheSavings(ctx, r.ID)
	if err != nil {
		return render.Row{}, s, err
	}
	row.Experiment, row.Seed, row.ParamsJSON, row.Range = r.Experiment, r.Seed, string(r.Params), r.Range
	if r.Simulated {
		row.SimParams = string(r.SimParams)
	}
	row.CacheHits, row.SavedTokens, row.SavedCost = saved.Hits, saved.Tokens(), saved.Cost
	return row, s, nil
}

// Rows is Row for each run, in order.
func Rows(ctx context.Context, st *store.Store, cat runinfo.Catalog, runs []store.Run) ([]render.Row, error) {
	rows := make([]render.Row, 0, len(runs))
	for _, r := range runs {
		row, _, err := Row(ctx, st, cat, r)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Groups pivots runs into configurations (render.Pivot).
func Groups(ctx context.Context, st *store.Store, cat runinfo.Catalog, runs []store.Run, level float64) ([]render.Group, error) {
	rows, err := Rows(ctx, st, cat, runs)
	if err != nil {
		return nil, err
	}
	return render.Pivot(rows, level), nil
}
