package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("list", stderr)
	db := fs.String("db", "", "also list the runs stored in this database (never creates it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *db != "" {
		// Opened first, so that a missing file fails before anything is printed.
		st, err := openExisting(ctx, *db)
		if err != nil {
			return err
		}
		defer st.Close()
		defer func() {
			if err == nil {
				err = listRuns(ctx, st, stdout)
			}
		}()
	}
	fmt.Fprintln(stdout, "tasks:")
	for _, t := range bench.Tasks() {
		fmt.Fprintf(stdout, "  %-10s %s\n", t.Name, t.Doc)
		task := t.New()
		if rc, ok := task.(tasks.RuleChooser); ok {
			for _, r := range rc.Rules() {
				rt, _ := rc.WithRule(r)
				fmt.Fprintf(stdout, "      --rule %-7s %s\n", r, tasks.Rule(rt))
			}
		} else if r := tasks.Rule(task); r != "" {
			fmt.Fprintf(stdout, "      scoring rule %s\n", r)
		}
	}
	fmt.Fprintln(stdout, "\nstrategies (set parameters with --set NAME=VALUE):")
	for _, s := range strategies.Registry() {
		fmt.Fprintf(stdout, "  %-10s %s\n", s.Name, s.Doc)
		for _, p := range s.Params {
			extra := ""
			if len(p.Allowed) > 0 {
				extra = " {" + strings.Join(p.Allowed, "|") + "}"
			}
			fmt.Fprintf(stdout, "      %-14s %-6s default %-8v %s%s\n", p.Name, p.Kind, p.Default, p.Doc, extra)
		}
	}
	fmt.Fprintln(stdout, "\npresets (bench run --preset NAME):")
	for _, p := range bench.Presets() {
		rule := ""
		if p.Rule != "" {
			rule = " (--rule " + p.Rule + ")"
		}
		fmt.Fprintf(stdout, "  %-18s %s on %s %s: %s%s\n", p.Name, p.Strategy, p.Task, p.Range, p.Doc, rule)
	}
	fmt.Fprintln(stdout, "\nmodels:")
	fmt.Fprintln(stdout, "  sim        built-in simulated model (default; offline; results labelled simulated); noise via --sim-* flags")
	fmt.Fprintln(stdout, "  NAME       any model of an OpenAI-compatible endpoint given by --base-url or $OPENAI_BASE_URL")
	return nil
}

// listRuns prints one line per stored run.
func listRuns(ctx context.Context, st *store.Store, w io.Writer) error {
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nruns in %s:\n", st.Path())
	if len(runs) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, r := range runs {
		exp := ""
		if r.Experiment != "" {
			exp = "  experiment " + r.Experiment
		}
		fmt.Fprintf(w, "  %4d  %-11s %-9s %-10s %-24s %-12s range %s  started %s%s\n", r.ID, r.Status, r.Task, r.Strategy,
			bench.ParamSummary(r.Strategy, r.Params), r.Model, r.Range, r.StartedAt.Local().Format("2006-01-02 15:04"), exp)
	}
	return nil
}
