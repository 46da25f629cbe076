package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

func cmdPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot", stderr)
	experiment := fs.String("experiment", "", "plot the configurations of one experiment")
	ids := fs.String("runs", "", "or: comma-separated run ids")
	last := fs.Int("last", 0, "or: the most recent N runs")
	x := fs.String("x", "tokens", "cost on the x axis: "+strings.Join(render.PlotAxes, ", ")+" (per item; wall: per run)")
	y := fs.String("y", "accuracy", "accuracy (with 95% interval bars), another metric (best_of_k, any_at_b, ...), or per_trial")
	kind := fs.String("kind", "", "trials: accuracy per Reflexion trial / Self-Refine iteration, one line per configuration (same as --y per_trial)")
	logX := fs.Bool("logx", false, "logarithmic x axis")
	frontier := fs.Bool("frontier", false, "accuracy against --x tokens or cost per item, CoT-SC as its vote curve over k', the Pareto frontier marked (which configuration is best at each budget)")
	out := fs.String("out", "", "image file; the extension picks the format: .svg, .png or .pdf")
	width := fs.Float64("width", 16, "width in cm")
	height := fs.Float64("height", 11, "height in cm")
	var bf budgetView
	addBudgetFlags(fs, &bf, "with --frontier: budget (every run on generated + verifier tokens per problem, CoT-SC and scored samples as curves over N'), level or difficulty (one image per level, OUT-level-V.svg; implies budget); --x tokens or generated")
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{errors.New("no --out: pass the image file, e.g. --out fig.svg (or .png, .pdf)")}
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(*out)), ".")
	if !slices.Contains(render.PlotFormats, format) {
		return usageError{fmt.Errorf("--out %q: the extension picks the format; want .svg, .png or .pdf", *out)}
	}
	if budget, err := bf.isBudget(); err != nil {
		return err
	} else if budget {
		if !*frontier {
			return usageError{errors.New("--by budget, level or difficulty: add --frontier")}
		}
		return plotBudgetFrontier(ctx, &bf, *db, *ids, *experiment, *last, *x, *out, format, *logX, *width, *height, stdout)
	}
	switch *kind {
	case "":
	case "trials":
		*y = render.PlotPerTrial
	default:
		return usageError{fmt.Errorf("--kind %q: the only kind is trials", *kind)}
	}
	if !slices.Contains(render.PlotAxes, *x) {
		return usageError{fmt.Errorf("--x %q: want one of %s", *x, strings.Join(render.PlotAxes, ", "))}
	}
	if *width <= 0 || *height <= 0 {
		return usageError{errors.New("--width and --height must be positive")}
	}
	f := store.RunFilter{Last: *last, Experiment: *experiment}
	if *ids != "" {
		var err error
		if f.IDs, err = parseRunIDs(*ids); err != nil {
			return err
		}
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
	groups, err := pivotRuns(ctx, st, runs, f)
	if err != nil {
		return err
	}
	// Every point at cost 0 would draw (and, with --frontier, name) one
	// configuration as best at no cost: say so instead.
	if *x == "cost" && len(groups) > 0 && !slices.ContainsFunc(groups, func(g render.Group) bool { return g.CostPerItem > 0 }) {
		return usageError{errors.New("--x cost: no selected run records a cost (simulated runs, or a model without known prices: see --prices); plot --x tokens")}
	}
	opts := render.PlotOptions{X: *x, Y: *y, Title: selectionTitle(f), LogX: *logX}
	var p *plot.Plot
	var front []render.FrontierPoint
	if *frontier {
		curves := make([][]render.CurvePoint, len(groups))
		for i, g := range groups {
			if curves[i], err = results.GroupCurve(ctx, st, g); err != nil {
				return err
			}
		}
		p, front, err = render.NewFrontierPlot(groups, curves, opts)
	} else {
		p, err = render.NewPlot(groups, opts)
	}
	if err != nil {
		return usageError{err}
	}
	var buf bytes.Buffer
	if err := render.WritePlot(&buf, p, format, vg.Length(*width)*vg.Centimeter, vg.Length(*height)*vg.Centimeter); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d configurations from %d runs)\n", *out, len(groups), len(runs))
	if len(front) > 0 {
		printFrontier(stdout, *x+" per item", front)
	}
	return nil
}

// printFrontier lists a Pareto frontier's stretches, cheapest first; axis
// names its x ("tokens per item").
func printFrontier(w io.Writer, axis string, front []render.FrontierPoint) {
	fmt.Fprintf(w, "Pareto frontier (%s -> accuracy), cheapest first:\n", axis)
	for _, st := range render.Stretches(front) {
		if st.From == st.To {
			fmt.Fprintf(w, "  %.4g  %.3f  %s\n", st.From.X, st.From.Y, st.Label)
		} else {
			fmt.Fprintf(w, "  %.4g-%.4g  %.3f-%.3f  %s\n", st.From.X, st.To.X, st.From.Y, st.To.Y, st.Label)
		}
	}
}
