package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// Views of `bench report --by` on a budget axis and split by levels.
const (
	byBudget     = "budget"     // every run on one axis of tokens per problem, CoT-SC and best-of-N at every N'
	byLevel      = "level"      // split by an item label of the task (tasks.Labeled)
	byDifficulty = "difficulty" // split by levels from a run's own pass rate (search-and-learn's quintiles)
)

// byList is a repeatable --by: `--by budget --by level` or `--by budget,level`.
type byList []string

func (b *byList) String() string { return strings.Join(*b, ",") }

func (b *byList) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(*b, v) {
			*b = append(*b, v)
		}
	}
	return nil
}

// budgetView are the flags of budget and level views, shared by report
// and plot.
type budgetView struct {
	by             byList
	label          string
	difficultyFrom int64
	everyN         bool
}

func addBudgetFlags(fs *flag.FlagSet, b *budgetView, byDoc string) {
	fs.Var(&b.by, "by", byDoc)
	fs.StringVar(&b.label, "label", "", "with --by level: the item label to split by (default: the task's first, e.g. MATH-500's level; subject)")
	fs.BoolVar(&b.everyN, "every-n", false, "with --by budget: every N' ≤ N of CoT-SC and scored runs (default: powers of two and N, as search-and-learn reports them)")
	fs.Int64Var(&b.difficultyFrom, "difficulty-from", 0, "with --by difficulty: the run whose per-problem pass@1 over its samples makes the levels (default: the selected run with the most samples per problem)")
}

// isBudget says whether --by asks for a budget or level view, and
// checks the combination: budget, level or difficulty, budget with one of
// the other two.
func (b *budgetView) isBudget() (bool, error) {
	has := func(v string) bool { return slices.Contains(b.by, v) }
	if !has(byBudget) && !has(byLevel) && !has(byDifficulty) {
		return false, nil
	}
	if has(byLevel) && has(byDifficulty) {
		return true, usageError{errors.New("--by level and --by difficulty: split by one of them")}
	}
	for _, v := range b.by {
		if v != byBudget && v != byLevel && v != byDifficulty {
			return true, usageError{fmt.Errorf("--by %s cannot be combined with --by %s (combine budget with level or difficulty)", v, strings.Join(b.by, ","))}
		}
	}
	return true, nil
}

// options builds the budget options of the selected runs: curves with
// --by budget, the levels of --by level or --by difficulty (with a note
// naming the difficulty's reference run and cut points).
func (b *budgetView) options(ctx context.Context, st *store.Store, runs []store.Run) (results.BudgetOptions, []string, error) {
	o := results.BudgetOptions{Curves: slices.Contains(b.by, byBudget), EveryN: b.everyN, Curve: stats.DefaultCurveOptions}
	var notes []string
	switch {
	case slices.Contains(b.by, byLevel):
		o.Levels = results.TaskLabels(bench.Catalog{}, b.label)
	case slices.Contains(b.by, byDifficulty):
		var ref store.Run
		if b.difficultyFrom != 0 {
			var err error
			if ref, err = st.GetRun(ctx, b.difficultyFrom); err != nil {
				return o, nil, usageError{fmt.Errorf("--difficulty-from %d: %w", b.difficultyFrom, err)}
			}
		} else {
			var ok bool
			var err error
			if ref, ok, err = results.MostSampled(ctx, st, runs); err != nil {
				return o, nil, err
			} else if !ok {
				return o, nil, usageError{errors.New("--by difficulty: no selected run keeps samples to make pass rates from; pass --difficulty-from RUN (a cotsc, pal or bon run, or io/cot with k > 1)")}
			}
		}
		d, err := results.PassRateLevels(ctx, st, ref)
		if err != nil {
			return o, nil, usageError{err}
		}
		o.Levels = func(context.Context, store.Run) (results.Levels, error) { return d.Levels, nil }
		notes = append(notes, fmt.Sprintf("difficulty: levels from run %d's pass@1 per problem (the share of its samples that are right), cut at its quintiles %.4g, %.4g, %.4g, %.4g (linear interpolation): 5 below the first (hardest), 4 below the second, 3, 2, else 1, as search-and-learn's compute_level; problems tied at a cut point share a level, so with few samples some levels are empty. Run %[1]d's own rows are biased within a level (its levels come from its own answers); take levels from another run (another --seed) to compare it fairly.",
			ref.ID, d.Cuts[0], d.Cuts[1], d.Cuts[2], d.Cuts[3]))
	}
	return o, notes, nil
}

// writeBudgetReport writes bench report --by budget / level / difficulty.
func writeBudgetReport(ctx context.Context, st *store.Store, runs []store.Run, b *budgetView, format string, stdout io.Writer) error {
	if len(runs) == 0 {
		return usageError{errors.New("no runs selected")}
	}
	o, notes, err := b.options(ctx, st, runs)
	if err != nil {
		return err
	}
	rows, more, err := results.Budget(ctx, st, bench.Catalog{}, runs, o)
	if errors.Is(err, results.ErrNotLabeled) || errors.Is(err, results.ErrNoLabel) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	if err := render.WriteBudget(stdout, format, rows, append(notes, more...)); err != nil {
		return usageError{err}
	}
	return nil
}
