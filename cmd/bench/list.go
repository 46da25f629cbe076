package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("list", stderr)
	if err := parse(fs, args); err != nil {
		return err
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
			kind := string(p.Kind)
			if p.ModelDefault {
				kind += "|" + strategies.ModelDefaultValue
			}
			fmt.Fprintf(stdout, "      %-17s %-13s default %-8v %s%s\n", p.Name, kind, p.Default, p.Doc, extra)
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
	fmt.Fprintln(stdout, "             --param NAME=VALUE sends any request field verbatim (reasoning_effort=high, top_p=0.9, a JSON value as JSON);")
	fmt.Fprintln(stdout, "             --set temperature=default sends no temperature (reasoning models); --api completions for base models;")
	fmt.Fprintln(stdout, "             --think split|keep and --think-tags for <think> blocks in the content; see README, Models and servers")
	return nil
}
