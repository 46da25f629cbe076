package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

// plotBudgetFrontier draws bench plot --frontier --by budget|level|difficulty:
// the budget table's points, one image per level when split.
func plotBudgetFrontier(ctx context.Context, bf *budgetView, db, ids, experiment string, last int, x, out, format string,
	logX bool, width, height float64, stdout io.Writer) error {
	if !slices.Contains(render.BudgetAxes, x) {
		return usageError{fmt.Errorf("--x %q: a budget frontier plots against %s per problem", x, strings.Join(render.BudgetAxes, " or "))}
	}
	if width <= 0 || height <= 0 {
		return usageError{errors.New("--width and --height must be positive")}
	}
	// Levels imply the budget axis: a frontier per level is what they are for.
	if !slices.Contains(bf.by, byBudget) {
		bf.by = append(bf.by, byBudget)
	}
	f := store.RunFilter{Last: last, Experiment: experiment}
	if ids != "" {
		var err error
		if f.IDs, err = parseRunIDs(ids); err != nil {
			return err
		}
	}
	st, err := openReading(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := st.Runs(ctx, f)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return usageError{errors.New("no runs selected")}
	}
	o, _, err := bf.options(ctx, st, runs)
	if err != nil {
		return err
	}
	rows, _, err := results.Budget(ctx, st, bench.Catalog{}, runs, o)
	if errors.Is(err, results.ErrNotLabeled) || errors.Is(err, results.ErrNoLabel) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	for _, level := range render.BudgetLevels(rows) {
		var in []render.BudgetRow
		for _, r := range rows {
			if r.Level == level {
				in = append(in, r)
			}
		}
		title, path := selectionTitle(f), out
		if level != "" {
			title += ", " + level
			path = levelPath(out, level)
		}
		p, front, err := render.NewBudgetFrontierPlot(in, x, title, logX)
		if err != nil {
			return usageError{err}
		}
		var buf bytes.Buffer
		if err := render.WritePlot(&buf, p, format, vg.Length(width)*vg.Centimeter, vg.Length(height)*vg.Centimeter); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d points from %d runs)\n", path, len(in), len(runs))
		printFrontier(stdout, x+" per problem", front)
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// levelPath names a level's image: fig.svg, "level=3" → fig-level-3.svg.
func levelPath(out, level string) string {
	ext := filepath.Ext(out)
	name := unsafeName.ReplaceAllString(strings.ReplaceAll(level, "=", "-"), "_")
	return strings.TrimSuffix(out, ext) + "-" + name + ext
}
