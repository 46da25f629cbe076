package results

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// Purposes of calls that are not the method's own generation: a verifier's
// (its tokens are counted apart) and a judged task's judge (the task's
// scorer, spent whatever the method).
const (
	PurposeVerify = "verify"
	PurposeJudge  = "judge"
)

// Selection rules of N'-sample views (render.BudgetRow.Select).
const (
	SelectVote     = "vote"
	SelectMajority = "majority" // the same vote, as best-of-N's select=majority names it
	SelectBest     = "best"
	SelectWeighted = "weighted"
)

// Levels assigns items, by data-set index, to levels of one kind ("level",
// "subject", "difficulty"). Items it does not name are left out of a split
// table.
type Levels struct {
	Key string
	Of  map[int]string
}

// LevelsOf returns a run's levels; the budget report calls it once per run.
type LevelsOf func(ctx context.Context, run store.Run) (Levels, error)

// ErrNotLabeled says a run's task has no item labels.
var ErrNotLabeled = errors.New("the task's items carry no labels")

// ErrNoLabel says a run's task has item labels, but not the one asked for.
var ErrNoLabel = errors.New("no such item label")

// TaskLabels splits runs by the item label key of their recorded task
// (tasks.Labeled: MATH-500's "level" and "subject"); key "" takes the
// task's first label.
func TaskLabels(cat runinfo.Catalog, key string) LevelsOf {
	return func(_ context.Context, run store.Run) (Levels, error) {
		t, err := runinfo.RecordedTask(cat, run.Spec)
		if err != nil {
			return Levels{}, fmt.Errorf("run %d: %w", run.ID, err)
		}
		lv, err := labelsOf(t, key)
		if err != nil {
			return Levels{}, fmt.Errorf("run %d (%s): %w", run.ID, run.Task, err)
		}
		return lv, nil
	}
}

// labelsOf reads every item's label key ("" the first) of a task.
func labelsOf(t runinfo.Task, key string) (Levels, error) {
	keys := t.LabelKeys()
	if len(keys) == 0 {
		return Levels{}, fmt.Errorf("%w; --by difficulty makes levels from a run's pass rate", ErrNotLabeled)
	}
	if key == "" {
		key = keys[0]
	}
	if !slices.Contains(keys, key) {
		return Levels{}, fmt.Errorf("%w %q (the task's: %v)", ErrNoLabel, key, keys)
	}
	return Levels{Key: key, Of: t.Labels(key)}, nil
}

// Difficulty holds levels made from a run's own pass rate, as
// search-and-learn bins MATH-500 for compute-optimal scaling: each
// problem's pass@1 (the share of its samples that are right), the
// quintile cut points q1 < ... of pass@1 over the problems, and level 5
// (hardest) below q1, 4 below q2, 3 below q3, 2 below q4, else 1
// (sal.utils.math.compute_level's rule, read in forks of
// huggingface/search-and-learn; how it computes the quintiles was not in
// the code available, so the interpolation is ours: numpy's default).
type Difficulty struct {
	Run     int64
	PassAt1 map[int]float64
	Cuts    [4]float64
	Levels  Levels
}

// PassRateLevels makes difficulty levels from run's items: pass@1 over
// each item's samples, as its strategy's reader gives them (a CoT-SC,
// best-of-N or io/cot k>1 run; an item without samples counts its
// verdict, 0 or 1). The cut points are the 20th, 40th, 60th and 80th
// percentiles by linear interpolation (numpy.quantile's default). With
// few samples many problems tie, cut points coincide and levels stay
// empty: the rule's, said in the note.
func PassRateLevels(ctx context.Context, st *store.Store, run store.Run) (Difficulty, error) {
	items, err := st.Items(ctx, run.ID)
	if err != nil {
		return Difficulty{}, err
	}
	d := Difficulty{Run: run.ID, PassAt1: map[int]float64{}, Levels: Levels{Key: "difficulty", Of: map[int]string{}}}
	rd := reading.Of(run.Strategy)
	var xs []float64
	for _, it := range items {
		p := 0.0
		if smp, ok := rd.SamplesOf(it.Detail); ok {
			for _, c := range smp.Correct {
				if c {
					p++
				}
			}
			p /= float64(len(smp.Correct))
		} else if it.Correct {
			p = 1
		}
		d.PassAt1[it.Index] = p
		xs = append(xs, p)
	}
	if len(xs) == 0 {
		return d, fmt.Errorf("run %d has no items to make difficulty levels from", run.ID)
	}
	sort.Float64s(xs)
	for i, q := range []float64{0.2, 0.4, 0.6, 0.8} {
		d.Cuts[i] = quantile(xs, q)
	}
	for idx, p := range d.PassAt1 {
		lv := 1
		for i, c := range d.Cuts {
			if p < c {
				lv = 5 - i
				break
			}
		}
		d.Levels.Of[idx] = strconv.Itoa(lv)
	}
	return d, nil
}

// quantile is numpy.quantile's default (linear) on sorted xs.
func quantile(xs []float64, q float64) float64 {
	h := float64(len(xs)-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-lo)*(xs[i+1]-xs[i])
}

// MostSampled returns the run among runs whose items have the most samples
// on average (ties: the first), the natural reference for difficulty
// levels; ok is false when no run keeps samples.
func MostSampled(ctx context.Context, st *store.Store, runs []store.Run) (store.Run, bool, error) {
	var best store.Run
	bestMean := 0.0
	for _, r := range runs {
		items, err := st.Items(ctx, r.ID)
		if err != nil {
			return best, false, err
		}
		rd := reading.Of(r.Strategy)
		n, total := 0, 0
		for _, it := range items {
			if smp, ok := rd.SamplesOf(it.Detail); ok {
				total += len(smp.Correct)
			}
			n++
		}
		if n > 0 && float64(total)/float64(n) > bestMean {
			best, bestMean = r, float64(total)/float64(n)
		}
	}
	return best, bestMean > 0, nil
}

// BudgetOptions say what the budget table holds.
type BudgetOptions struct {
	// Curves adds, for CoT-SC and PAL runs (vote) and runs whose samples
	// carry verifier scores (vote, best, weighted), a row per N' ≤ N
	// (powers of two and N) instead of the run's own row.
	Curves bool
	// EveryN shows every N' ≤ N, not only powers of two and N.
	EveryN bool
	// Levels splits every run's items (nil: no split).
	Levels LevelsOf
	Curve  stats.CurveOptions
}

// budgetItem is what the budget report reads of one item.
type budgetItem struct {
	idx     int
	correct bool
	gen     float64 // completion tokens of the method's own calls
	ver     float64 // prompt and completion tokens of verifier calls
	// samples, when the item keeps them: vote keys (-1 abstains), verdicts,
	// when every sample has one, verifier scores, and the rule the
	// strategy answered by.
	keys    []int
	sampleC []bool
	scores  []float64
	rule    reading.Rule
}

// Budget lays out the runs on one cost scale: per run (and per level when
// o.Levels is set) its accuracy with generated and verifier tokens per
// problem; with o.Curves a CoT-SC or scored run is shown at every N' of
// its samples instead, its tokens N'/N of each item's. Notes say what a
// reader must know.
func Budget(ctx context.Context, st *store.Store, cat runinfo.Catalog, runs []store.Run, o BudgetOptions) ([]render.BudgetRow, []string, error) {
	var rows []render.BudgetRow
	var notes []string
	estimated, scored, missing := false, false, 0
	for _, run := range runs {
		s, err := runinfo.Summarize(ctx, st, cat, run.ID)
		if err != nil {
			return nil, nil, err
		}
		head := RowOf(s)
		if n := ForgeableRuns([]render.Row{head}); n != "" {
			notes = append(notes, n)
		}
		items, err := budgetItems(ctx, st, run.ID, reading.Of(run.Strategy))
		if err != nil {
			return nil, nil, err
		}
		groups := map[string][]budgetItem{"": items}
		if o.Levels != nil {
			lv, err := o.Levels(ctx, run)
			if err != nil {
				return nil, nil, err
			}
			groups = map[string][]budgetItem{}
			for _, it := range items {
				v, ok := lv.Of[it.idx]
				if !ok {
					missing++
					continue
				}
				name := lv.Key + "=" + v
				groups[name] = append(groups[name], it)
			}
		}
		levels := make([]string, 0, len(groups))
		for l := range groups {
			levels = append(levels, l)
		}
		slices.SortFunc(levels, render.CompareLevels)
		for _, l := range levels {
			base := render.BudgetRow{Level: l, RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: head.Params,
				Model: s.Model, Simulated: s.Simulated, Status: s.Status, Exact: true}
			var curve []render.BudgetRow
			if o.Curves {
				curve = budgetCurve(base, groups[l], o.Curve, o.EveryN)
			}
			if len(curve) > 0 {
				rows = append(rows, curve...)
				estimated = true
				scored = scored || slices.ContainsFunc(curve, func(r render.BudgetRow) bool { return r.Select == SelectBest || r.Select == SelectMajority })
				continue
			}
			rows = append(rows, runRow(base, groups[l]))
		}
	}
	// A split table reads level by level: every run's rows of a level
	// together, runs in the order given.
	slices.SortStableFunc(rows, func(a, b render.BudgetRow) int { return render.CompareLevels(a.Level, b.Level) })
	notes = append(notes, "generated tokens/problem: completion tokens of every call but the verifier's (purpose verify) and a judged task's judge, mean per problem; verifier tokens/problem: prompt and completion tokens of verifier calls (a reward model reads the solution; what it returns is a score). Cache hits count: a budget is what the method asks for.")
	if estimated {
		notes = append(notes, "N': a run with N samples per problem shown as if it had drawn N' of them (powers of two and N; every N' with --every-n): accuracy expected over uniform N'-subsets of each problem's samples (enumerated, else sampled: mc_se), over the problems with at least N' samples; tokens marked * are estimated as N'/N of each problem's generated (and verifier) tokens. search-and-learn instead takes the first N' completions; for independent samples both have the same expectation, subsets with less noise.")
	}
	if scored {
		notes = append(notes, "select: vote is CoT-SC's majority (ties to the answer seen first, unanswered samples abstain), named majority for a best-of-N run with select=majority; best the sample with the highest verifier score (ties to the earliest, as search-and-learn's stable sort); weighted the answer with the largest sum of verifier scores (ties to the answer seen first; unanswered samples do not count, where search-and-learn would group empty answers).")
	}
	if missing > 0 {
		notes = append(notes, fmt.Sprintf("%d items have no level and are left out.", missing))
	}
	return rows, notes, nil
}

// runRow is a run's own row within a level: the share right and the mean
// tokens of its items.
func runRow(base render.BudgetRow, items []budgetItem) render.BudgetRow {
	r := base
	r.Items = len(items)
	for _, it := range items {
		if it.correct {
			r.Accuracy++
		}
		r.GeneratedTokens += it.gen
		r.VerifierTokens += it.ver
	}
	if n := float64(len(items)); n > 0 {
		r.Accuracy /= n
		r.GeneratedTokens /= n
		r.VerifierTokens /= n
	}
	return r
}

// budgetCurve is a run's N' rows within a level: vote for CoT-SC and PAL,
// vote, best and weighted for runs whose every sample has a verifier
// score; nil for other runs.
func budgetCurve(base render.BudgetRow, items []budgetItem, o stats.CurveOptions, every bool) []render.BudgetRow {
	var sampled []budgetItem
	allScored := true
	for _, it := range items {
		if len(it.keys) == 0 {
			continue
		}
		sampled = append(sampled, it)
		allScored = allScored && it.scores != nil
	}
	if len(sampled) == 0 {
		return nil
	}
	votes := slices.ContainsFunc(sampled, func(it budgetItem) bool {
		return it.rule == reading.RuleVote || it.rule == reading.RuleMajority
	})
	if !votes && !allScored {
		return nil // io and cot keep samples but answer with the first
	}
	// The vote row is named as the run's own parameter names it: bon's
	// select=majority is CoT-SC's vote.
	vote := SelectVote
	if !slices.ContainsFunc(sampled, func(it budgetItem) bool { return it.rule != reading.RuleMajority }) {
		vote = SelectMajority
	}
	kmax := 0
	vis := make([]stats.VoteItem, len(sampled))
	for i, it := range sampled {
		kmax = max(kmax, len(it.keys))
		vis[i] = stats.VoteItem{Keys: it.keys, Correct: it.sampleC}
	}
	var ks []int
	for k := 1; k < kmax; k *= 2 {
		ks = append(ks, k)
		if every {
			for j := k + 1; j < min(2*k, kmax); j++ {
				ks = append(ks, j)
			}
		}
	}
	ks = append(ks, kmax)
	selects := []string{vote}
	if allScored {
		selects = append(selects, SelectBest, SelectWeighted)
	}
	pts := stats.VoteCurve(vis, o)
	// best and weighted: bon's own rules over N'-subsets (stats.ScoredCurve,
	// as --by k computes them), over the same items (those with at least N'
	// samples).
	var scored []stats.ScoredPoint
	if allScored {
		sis := make([]stats.ScoredItem, len(sampled))
		for i, it := range sampled {
			sis[i] = stats.ScoredItem{Keys: it.keys, Scores: it.scores, Correct: it.sampleC}
		}
		scored = stats.ScoredCurve(sis, o)
	}
	var out []render.BudgetRow
	for _, sel := range selects {
		for _, kp := range ks {
			r := base
			r.Select, r.K, r.KOf, r.Estimated = sel, kp, kmax, kp < kmax
			for _, it := range sampled {
				k := len(it.keys)
				if k < kp {
					continue
				}
				r.Items++
				f := float64(kp) / float64(k)
				r.GeneratedTokens += it.gen * f
				r.VerifierTokens += it.ver * f
			}
			if r.Items == 0 {
				continue
			}
			m := float64(r.Items)
			r.GeneratedTokens /= m
			r.VerifierTokens /= m
			switch sel {
			case SelectVote, SelectMajority:
				// The vote's own computation, so the figure is --by k's.
				r.Accuracy, r.Exact, r.MCSE = pts[kp-1].Vote, pts[kp-1].Exact, pts[kp-1].VoteSE
			case SelectBest:
				r.Accuracy, r.Exact = scored[kp-1].Best, true
			case SelectWeighted:
				r.Accuracy, r.Exact, r.MCSE = scored[kp-1].Weighted, scored[kp-1].Exact, scored[kp-1].WeightedSE
			}
			out = append(out, r)
		}
	}
	return out
}

// budgetItems reads a run's items with their tokens by purpose and their
// samples, as their strategy's reading gives them.
func budgetItems(ctx context.Context, st *store.Store, runID int64, rd reading.Reading) ([]budgetItem, error) {
	items, err := st.Items(ctx, runID)
	if err != nil {
		return nil, err
	}
	byPurpose, err := st.PurposeTotals(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]budgetItem, 0, len(items))
	for _, it := range items {
		b := budgetItem{idx: it.Index, correct: it.Correct}
		for purpose, t := range byPurpose[it.Index] {
			switch purpose {
			case PurposeVerify:
				b.ver += float64(t.PromptTokens + t.CompletionTokens)
			case PurposeJudge:
			default:
				b.gen += float64(t.CompletionTokens)
			}
		}
		// best-of-N's candidates are independent samples, each with its
		// verifier score; beam's and dvts's are not (they get one row).
		if smp, ok := rd.SamplesOf(it.Detail); ok {
			b.keys, b.sampleC, b.scores, b.rule = voteIDs(smp.Keys), smp.Correct, smp.Scores, smp.Rule
		}
		out = append(out, b)
	}
	return out, nil
}

// voteIDs numbers an item's vote keys in order of first appearance (-1:
// the sample abstains), as stats.VoteItem wants them.
func voteIDs(keys []*string) []int {
	ids := map[string]int{}
	out := make([]int, len(keys))
	for i, k := range keys {
		if k == nil {
			out[i] = -1
			continue
		}
		id, seen := ids[*k]
		if !seen {
			id = len(ids)
			ids[*k] = id
		}
		out[i] = id
	}
	return out
}
