package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/view"
)

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", stderr)
	baseline := fs.Int64("baseline", 0, "the run to compare against (default: the first run given); its configuration's runs are pooled")
	format := fs.String("format", "md", "md, csv, latex or json")
	level := fs.Float64("level", render.Level, "confidence level of the paired intervals")
	metric := fs.String("metric", "", "compare an item metric instead of the score, e.g. letter or word (crosswords), coherency (creative); paired t")
	mixed := fs.Bool("allow-mixed-rules", false, "compare runs scored by different scoring rules (a warning names them)")
	db := dbFlag(fs)
	const usage = "usage: bench compare [--db F] [--baseline RUN] RUN RUN... [--metric NAME] [--format md|csv|latex|json] [--level 0.95] [--allow-mixed-rules]"
	ids, err := parseRunIDArgs(fs, args, usage)
	if err != nil {
		return err
	}
	if !slices.Contains(render.CompareFormats, *format) {
		return usageError{fmt.Errorf("unknown format %q (known: %s)", *format, strings.Join(render.CompareFormats, ", "))}
	}
	if !(*level > 0 && *level < 1) {
		return usageError{fmt.Errorf("--level %g: want a confidence level between 0 and 1, e.g. 0.95", *level)}
	}
	if *baseline != 0 && !slices.Contains(ids, *baseline) {
		ids = append([]int64{*baseline}, ids...)
	}
	if len(ids) < 2 {
		return usageError{errors.New("compare needs two or more runs: " + usage)}
	}
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return usageError{fmt.Errorf("run %d is given twice: give each run once", id)}
		}
	}
	if len(ids) > view.MaxCompare {
		return usageError{fmt.Errorf("%d runs: compare at most %d at once", len(ids), view.MaxCompare)}
	}
	base := ids[0]
	if *baseline != 0 {
		base = *baseline
	}
	st, err := openReading(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs := make([]store.Run, len(ids))
	for i, id := range ids {
		if runs[i], err = st.GetRun(ctx, id); err != nil {
			return usageError{err}
		}
		if runs[i].Task != runs[0].Task {
			return usageError{fmt.Errorf("run %d is on %s and run %d on %s: compare runs of the same task", runs[0].ID, runs[0].Task, runs[i].ID, runs[i].Task)}
		}
	}
	groups, err := results.Groups(ctx, st, bench.Catalog{}, runs, *level)
	if err != nil {
		return err
	}
	var rows []render.Row
	for _, g := range groups {
		rows = append(rows, g.Runs...)
	}
	rulesNote := results.MixedRules(rows)
	if rulesNote != "" && !*mixed {
		return usageError{fmt.Errorf("%s: rescore them under one rule (bench score --rule) or pass --allow-mixed-rules to compare anyway", rulesNote)}
	}
	if len(groups) < 2 {
		return usageError{fmt.Errorf("runs %s are one configuration (repeats are pooled): give runs of another configuration to compare", joinInts(ids))}
	}
	if *metric != "" && !slices.ContainsFunc(groups, func(g render.Group) bool { _, ok := g.Metrics[*metric]; return ok }) {
		var have []string
		for _, g := range groups {
			for k := range g.Metrics {
				if !slices.Contains(have, k) {
					have = append(have, k)
				}
			}
		}
		slices.Sort(have)
		return usageError{fmt.Errorf("--metric %s: the runs record no such metric (they have: %s)", *metric, strings.Join(have, ", "))}
	}
	cs, err := results.CompareMetric(ctx, st, groups, results.GroupOfRun(groups, base), *level, *metric)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if c.N == 0 {
			return usageError{fmt.Errorf("%s (run %s) and the baseline %s (run %s) share no items: compare runs over the same --range",
				c.Label, runsText(c.Runs), c.BaseLabel, runsText(c.BaselineRuns))}
		}
	}
	if rulesNote != "" {
		fmt.Fprintf(stderr, "WARNING: %s\n", rulesNote)
		if *format == "md" {
			fmt.Fprintf(stdout, "**WARNING: %s.**\n\n", rulesNote)
		}
	}
	if n := results.ForgeableRuns(rows); n != "" {
		fmt.Fprintf(stderr, "WARNING: %s\n", n)
		if *format == "md" {
			fmt.Fprintf(stdout, "**WARNING: %s**\n\n", n)
		}
	}
	return render.WriteComparisons(stdout, *format, cs)
}

func runsText(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, "+")
}

func joinInts(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
