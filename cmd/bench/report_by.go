package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// Views of `bench report --by`.
const (
	byTrial     = "trial"     // Reflexion: accuracy after each trial
	byIteration = "iteration" // Self-Refine: accuracy after each iteration
	byK         = "k"         // CoT-SC: the vote's expected accuracy at every k' <= k
	byRound     = "round"     // debate: the majority's accuracy after each round
	byModel     = "model"     // calls, tokens and cost by the model that answered
)

// writeSeriesReport writes one row per (run, trial) or (run, iteration)
// with the accuracy after it, for the selected runs that have the series.
func writeSeriesReport(ctx context.Context, st *store.Store, runs []store.Run, by, format string, stdout io.Writer) error {
	if by == byModel {
		return writeModelReport(ctx, st, runs, format, stdout)
	}
	if by != byTrial && by != byIteration && by != byK && by != byRound {
		return usageError{fmt.Errorf("--by %q: want %s, %s, %s or %s (or %s, %s, %s, %s)", by, byTrial, byIteration, byK, byRound, byModel, byBudget, byLevel, byDifficulty)}
	}
	var rows []render.SeriesRow
	var notes []string
	episodes := false      // a run of episodes with trials: pass^k and pass@k
	var heads []render.Row // for the forgeable-rule note
	for _, r := range runs {
		s, err := bench.Summarize(ctx, st, r.ID)
		if err != nil {
			return err
		}
		heads = append(heads, results.RowOf(s))
		if by == byRound {
			curve, _, err := results.RoundCurve(ctx, st, results.RowOf(s))
			if err != nil {
				return err
			}
			rows = append(rows, curve...)
			continue
		}
		if by != byK {
			rows = append(rows, seriesRows(s, by)...)
			continue
		}
		if pass, ok, err := results.PassCurve(ctx, st, results.RowOf(s)); err != nil {
			return err
		} else if ok {
			rows = append(rows, pass...)
			episodes = true
			continue
		}
		curve, note, ok, err := results.VoteCurve(ctx, st, results.RowOf(s), stats.DefaultCurveOptions)
		if err != nil {
			return err
		}
		if ok {
			rows = append(rows, curve...)
			if note != "" {
				notes = append(notes, note)
			}
		}
	}
	if len(rows) == 0 {
		if by == byK {
			return usageError{errors.New("--by k: no selected run has CoT-SC samples or episodes with trials (pick cotsc runs, or tau-* runs with --set trials=N, with --runs)")}
		}
		if by == byRound {
			return usageError{errors.New("--by round: no selected run has a debate transcript (pick debate runs with --runs)")}
		}
		return usageError{fmt.Errorf("--by %s: no selected run has a per-%s series (reflexion runs have trials, selfrefine runs iterations)", by, by)}
	}
	unit := by
	if episodes && len(rows) > 0 && rows[0].TokensPerItem == nil && rows[0].MCSE == nil {
		unit = "trials" // every row a pass curve's
	}
	if err := render.WriteSeries(stdout, format, unit, rows); err != nil {
		return usageError{err}
	}
	shown := slices.DeleteFunc(heads, func(h render.Row) bool {
		return !slices.ContainsFunc(rows, func(r render.SeriesRow) bool { return r.RunID == h.RunID })
	})
	if n := results.ForgeableRuns(shown); n != "" && format == "md" {
		fmt.Fprintf(stdout, "\n- %s\n", n)
	}
	if by == byRound && format == "md" {
		fmt.Fprintln(stdout, "\n- round: the majority of the agents' answers after that round under the run's vote key (ties to the answer seen first), as if the debate had stopped there; any agent right: some agent's answer of that round is right.")
	}
	if by == byK && format == "md" && episodes {
		notes = append(notes, "k (episodes): accuracy is pass^k', τ-bench's: per task with c successes of n trials C(c,k')/C(n,k'), the chance that k' trials drawn without replacement all succeed, averaged over tasks; pass@k is 1 - C(n-c,k')/C(n,k'), some of them does.")
	}
	if by == byK && format == "md" && unit == by {
		notes = append(notes, fmt.Sprintf("k: k' samples of each item's k, every k'-subset weighted alike (enumerated when an item has at most %g of them; otherwise %d random subsets, mc_se their Monte Carlo standard error); the vote is CoT-SC's (most frequent answer, ties to the one seen first, unanswered samples abstain); best-of-k': any sample of the subset right; tokens/item: the prompt once plus k'/k of the completions.",
			stats.DefaultCurveOptions.MaxSubsets, stats.DefaultCurveOptions.Draws))
	}
	if by == byK && format == "md" {
		for _, n := range notes {
			fmt.Fprintf(stdout, "\n- %s", n)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// seriesRows lays out a run summary's per-trial or per-iteration series.
func seriesRows(s bench.Summary, by string) []render.SeriesRow {
	acc, ran := s.PerTrial, s.PerTrialRan
	if by == byIteration {
		acc, ran = s.PerIteration, s.PerIterationRan
	}
	row := results.RowOf(s)
	out := make([]render.SeriesRow, len(acc))
	for i, a := range acc {
		r := render.SeriesRow{RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: row.Params, Model: s.Model,
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

// writeModelReport writes one row per (run, model that answered): calls,
// tokens and cost, so a run whose agents are several models shows each.
func writeModelReport(ctx context.Context, st *store.Store, runs []store.Run, format string, stdout io.Writer) error {
	var rows []render.ModelRow
	for _, r := range runs {
		us, err := results.ModelUses(ctx, st, r)
		if err != nil {
			return err
		}
		s, err := bench.Summarize(ctx, st, r.ID)
		if err != nil {
			return err
		}
		for i := range us {
			us[i].Params = results.RowOf(s).Params
		}
		rows = append(rows, us...)
	}
	if err := render.WriteModels(stdout, format, rows); err != nil {
		return usageError{err}
	}
	return nil
}
