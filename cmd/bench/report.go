package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	last := fs.Int("last", 0, "the most recent N runs (default: all)")
	ids := fs.String("runs", "", "comma-separated run ids")
	format := fs.String("format", "md", "md, csv, latex or json")
	experiment := fs.String("experiment", "", "the runs of one experiment, one row per configuration (repeats pooled, 95% intervals)")
	group := fs.Bool("group", false, "one row per configuration also for --last/--runs (default with --experiment; --group=false lists its runs)")
	var bf budgetView
	addBudgetFlags(fs, &bf, "trial: one row per (run, trial) with the accuracy after it (reflexion); iteration: the same per selfrefine iteration; round: one row per (debate run, round) with the accuracy of the majority after it; model: one row per (run, model that answered) with its calls, tokens and cost; k: one row per (cotsc run, k') with the vote's expected accuracy over k'-subsets of its samples, best-of-k' and tokens; "+
		"tool: each run's calls to its MCP tools (calls, success rate, latency per tool; tool calls and steps per item); budget: every run's accuracy with generated and verifier tokens per problem, CoT-SC and scored samples at every N' (vote, best, weighted); level: split by an item label (--label); difficulty: split by pass-rate quintiles (--difficulty-from); repeat or comma-join to combine budget with level or difficulty")
	baseline := fs.Int64("baseline", 0, "with --experiment or --group: compare every configuration with this run's, paired per item (default: the experiment file's baseline:)")
	columns := fs.String("columns", "", "with --format latex: the table's columns, comma-separated header names in the order to print (e.g. strategy,params,accuracy,95% CI); default: every column not empty in all rows")
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	var cols []string
	if *columns != "" {
		cols = strings.Split(*columns, ",")
		if *format != "latex" {
			return usageError{errors.New("--columns chooses the columns of a LaTeX table: add --format latex")}
		}
	}
	grouped := *experiment != ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "group" {
			grouped = *group
		}
	})
	f := store.RunFilter{Last: *last, Experiment: *experiment}
	if *ids != "" {
		var err error
		if f.IDs, err = parseRunIDs(*ids); err != nil {
			return err
		}
	}
	// A bad format is reported before the database is looked for.
	budget, err := bf.isBudget()
	if err != nil {
		return err
	}
	by := strings.Join(bf.by, ",")
	if cols != nil && (budget || by != "") {
		return usageError{errors.New("--columns chooses the columns of the runs or experiment table: drop --by")}
	}
	formats := render.Formats
	if by != "" {
		formats = render.SeriesFormats
	}
	if !slices.Contains(formats, *format) {
		return usageError{fmt.Errorf("unknown format %q (known: %s)", *format, strings.Join(formats, ", "))}
	}
	st, err := openReading(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := st.Runs(ctx, f)
	if err != nil {
		return err
	}
	if budget {
		return writeBudgetReport(ctx, st, runs, &bf, *format, stdout)
	}
	if by == byTool {
		return writeToolReport(ctx, st, runs, *format, stdout)
	}
	if by != "" {
		return writeSeriesReport(ctx, st, runs, by, *format, stdout)
	}
	if grouped {
		return writeExperimentReport(ctx, st, runs, f, *baseline, *format, cols, stdout, stderr)
	}
	if *baseline != 0 {
		return usageError{errors.New("--baseline compares configurations: add --experiment ID or --group (or use bench compare)")}
	}
	rows, err := results.Rows(ctx, st, bench.Catalog{}, runs)
	if err != nil {
		return err
	}
	if err := render.WriteColumns(stdout, *format, rows, cols); err != nil {
		return usageError{err}
	}
	return nil
}

// ---- experiment tables (bench report --experiment, --group) and the run
// selection and rows they share with bench plot.

// writeExperimentReport pivots runs into one row per configuration, with
// paired columns against the baseline when there is one.
func writeExperimentReport(ctx context.Context, st *store.Store, runs []store.Run, f store.RunFilter, baseline int64, format string, cols []string, stdout, stderr io.Writer) error {
	if !slices.Contains(render.ExperimentFormats, format) {
		return usageError{fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(render.ExperimentFormats, ", "))}
	}
	groups, err := pivotRuns(ctx, st, runs, f)
	if err != nil {
		return err
	}
	if err := addBaseline(ctx, st, runs, groups, baseline, stderr); err != nil {
		return err
	}
	err = render.WriteExperimentColumns(stdout, format, selectionTitle(f), groups, cols)
	if errors.As(err, new(render.ColumnsError)) {
		return usageError{err}
	}
	return err
}

// addBaseline adds the paired comparisons with the baseline configuration:
// the one holding run baseline, else the one the experiment file named. An
// experiment's baseline outside the selected runs (bench report --runs 4
// --group) leaves the table without paired columns, said on stderr.
func addBaseline(ctx context.Context, st *store.Store, runs []store.Run, groups []render.Group, baseline int64, stderr io.Writer) error {
	base := -1
	if baseline != 0 {
		if base = results.GroupOfRun(groups, baseline); base < 0 {
			return usageError{fmt.Errorf("--baseline %d: not among the selected runs", baseline)}
		}
	} else if spec := results.ExperimentBaseline(runs); spec != "" {
		var err error
		if base, err = results.MatchBaseline(groups, spec); errors.Is(err, results.ErrNoBaseline) {
			fmt.Fprintf(stderr, "bench report: the experiment's baseline %q is not among the selected runs: no paired columns (select its runs too, or pass --baseline RUN)\n", spec)
			return nil
		} else if err != nil {
			return usageError{fmt.Errorf("%w; pass --baseline RUN", err)}
		}
	}
	if base < 0 || len(groups) < 2 {
		return nil
	}
	return results.AddPaired(ctx, st, groups, base, render.Level)
}

// pivotRuns summarizes runs and groups them into configurations; an empty
// selection is the user's to fix.
func pivotRuns(ctx context.Context, st *store.Store, runs []store.Run, f store.RunFilter) ([]render.Group, error) {
	if len(runs) == 0 {
		if f.Experiment != "" {
			return nil, usageError{fmt.Errorf("experiment %q has no runs in %s", f.Experiment, st.Path())}
		}
		return nil, usageError{errors.New("no runs selected")}
	}
	return results.Groups(ctx, st, bench.Catalog{}, runs, render.Level)
}

// parseRunIDs reads --runs 1,2,3.
func parseRunIDs(s string) ([]int64, error) {
	var ids []int64
	for _, part := range strings.Split(s, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil {
			return nil, usageError{fmt.Errorf("--runs %q: want comma-separated run ids", s)}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// selectionTitle names a run selection in captions and plot titles.
func selectionTitle(f store.RunFilter) string {
	switch {
	case f.Experiment != "":
		return "experiment " + f.Experiment
	case len(f.IDs) > 0:
		s := make([]string, len(f.IDs))
		for i, id := range f.IDs {
			s[i] = strconv.FormatInt(id, 10)
		}
		return "runs " + strings.Join(s, ", ")
	case f.Last > 0:
		return fmt.Sprintf("last %d runs", f.Last)
	}
	return "all runs"
}
