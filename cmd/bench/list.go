package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/suggest"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("list", stderr)
	fileTask := fs.String("task", "", "describe this task only, e.g. file:PATH.jsonl: its data digest, rows and scorer")
	spec := fs.String("task-spec", "", taskSpecHelp)
	db := fs.String("db", "", "also list the runs stored in this database (never creates it)")
	sections, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	for i, sec := range sections {
		for _, full := range listSections {
			if len(sec) >= 3 && strings.HasPrefix(full, sec) { // bench list strat
				sections[i], sec = full, full
			}
		}
		if !slices.Contains(listSections, sec) {
			if near := suggest.Nearest(sec, listSections); near != "" {
				return usageError{fmt.Errorf("no section %q: did you mean %s? (sections: %s)", sec, near, strings.Join(listSections, ", "))}
			}
			return usageError{fmt.Errorf("no section %q (sections: %s)", sec, strings.Join(listSections, ", "))}
		}
	}
	show := func(sec string) bool { return len(sections) == 0 || slices.Contains(sections, sec) }
	if *db != "" {
		// Opened first, so that a missing file fails before anything is printed.
		st, err := openReading(ctx, *db)
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
	if *fileTask != "" {
		return listTask(stdout, *fileTask, *spec)
	}
	var out []func()
	if show("tasks") {
		out = append(out, func() { listTasks(stdout) })
	}
	if show("strategies") {
		out = append(out, func() { listStrategies(stdout) })
	}
	if show("presets") {
		out = append(out, func() { listPresets(stdout) })
	}
	if show("models") {
		out = append(out, func() { listModels(stdout) })
	}
	for i, f := range out {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		f()
	}
	return nil
}

// listSections are what bench list SECTION... shows one of.
var listSections = []string{"tasks", "strategies", "presets", "models"}

func listTasks(stdout io.Writer) {
	fmt.Fprintln(stdout, "tasks:")
	for _, t := range bench.Tasks() {
		wrapLine(stdout, fmt.Sprintf("  %-10s ", t.Name), t.Doc)
		task := t.New()
		if d, ok := task.(tasks.DataSource); ok {
			fmt.Fprintf(stdout, "      data %s (%d rows)\n", d.Dataset().SHA256, d.Dataset().Rows)
		}
		if rc, ok := task.(tasks.RuleChooser); ok {
			for _, r := range rc.Rules() {
				rt, _ := rc.WithRule(r)
				wrapLine(stdout, fmt.Sprintf("      --rule %-7s ", r), tasks.Rule(rt))
			}
		} else if r := tasks.Rule(task); r != "" {
			wrapLine(stdout, "      scoring rule ", r)
		}
	}
	wrapLine(stdout, fmt.Sprintf("  %-10s ", "file:PATH"), "your own data: a JSONL or CSV file with question, answer and optional context, choices, id (--task-spec for other names); runs record its digest (bench list --task file:PATH shows it)")
	fmt.Fprintln(stdout, "      scorers (--scorer NAME, or scorer: in the spec):")
	for _, d := range qa.ScorerDocs {
		wrapLine(stdout, fmt.Sprintf("      %-8s ", d.Name), d.Doc)
	}
}

func listStrategies(stdout io.Writer) {
	fmt.Fprintln(stdout, "strategies (set parameters with --set NAME=VALUE):")
	for _, s := range strategies.Registry() {
		wrapLine(stdout, fmt.Sprintf("  %-10s ", s.Name), s.Doc)
		if s.Shares != "" {
			wrapLine(stdout, "      shares: ", s.Shares)
		}
		for _, p := range s.Params {
			extra := ""
			if len(p.Allowed) > 0 {
				extra = " {" + strings.Join(p.Allowed, "|") + "}"
			}
			kind := string(p.Kind)
			if p.ModelDefault {
				kind += "|" + param.ModelDefaultValue
			}
			wrapLine(stdout, fmt.Sprintf("      %-17s %-13s default %-8v ", p.Name, kind, p.Default), p.Doc+extra)
		}
	}
}

func listPresets(stdout io.Writer) {
	fmt.Fprintln(stdout, "presets (bench run --preset NAME):")
	for _, p := range bench.Presets() {
		rule := ""
		if p.Rule != "" {
			rule = " (--rule " + p.Rule + ")"
		}
		wrapLine(stdout, fmt.Sprintf("  %-18s ", p.Name), fmt.Sprintf("%s on %s %s: %s%s", p.Strategy, p.Task, p.Range, p.Doc, rule))
	}
}

func listModels(stdout io.Writer) {
	fmt.Fprintln(stdout, "models:")
	fmt.Fprintln(stdout, "  sim        built-in simulated model (default; offline; results labelled simulated); noise via --sim-* flags")
	fmt.Fprintln(stdout, "  NAME       any model of an OpenAI-compatible endpoint given by --base-url or $OPENAI_BASE_URL")
	fmt.Fprintln(stdout, "             --param NAME=VALUE sends any request field verbatim (reasoning_effort=high, top_p=0.9, a JSON value as JSON);")
	fmt.Fprintln(stdout, "             --set temperature=default sends no temperature (reasoning models); --api completions for base models;")
	fmt.Fprintln(stdout, "             --think split|keep and --think-tags for <think> blocks in the content; see docs/models.md")
}

// listTask describes one task: its name as runs record it, its data and
// its scoring rule.
func listTask(stdout io.Writer, name, spec string) error {
	task, err := bench.OpenTask(name, spec, "")
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stdout, "task %s\n", task.Name())
	if d, ok := task.(tasks.DataSource); ok {
		ds := d.Dataset()
		fmt.Fprintf(stdout, "  data  %s (%d rows)", ds.SHA256, ds.Rows)
		if ds.Path != "" {
			fmt.Fprintf(stdout, " %s", ds.Path)
		}
		fmt.Fprintln(stdout)
		if ds.Spec != "" {
			fmt.Fprintf(stdout, "  spec  %s %s\n", ds.SpecSHA256, ds.Spec)
		}
	}
	fmt.Fprintf(stdout, "  rule  %s\n", tasks.Rule(task))
	var caps []string
	if _, ok := task.(tasks.ContextRenderer); ok {
		caps = append(caps, "context=gold|none", "react and lats over a docstore of its context")
	}
	if ts, ok := task.(tasks.ThoughtSpace); ok {
		caps = append(caps, fmt.Sprintf("tot and mcts with generate=sample evaluate=vote, %d steps", ts.Steps()))
	}
	if len(caps) > 0 {
		fmt.Fprintf(stdout, "  offers %s\n", strings.Join(caps, "; "))
	}
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
			bench.ParamSummary(r.Strategy, r.Params), render.ModelText(r.Model, r.Simulated), r.Range, r.StartedAt.Local().Format("2006-01-02 15:04"), exp)
	}
	return nil
}
