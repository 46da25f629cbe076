package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

func cmdShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("show", stderr)
	item := fs.Int("item", -1, "item (row index) to show; default: list the run's items")
	db := dbFlag(fs)
	runID, err := parseRunArg(fs, args, "usage: bench show RUN [--item I]")
	if err != nil {
		return err
	}
	st, err := openReading(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return usageError{err}
	}
	items, err := st.Items(ctx, runID)
	if err != nil {
		return err
	}
	sim := ""
	if run.Simulated {
		sim = " (simulated)"
	}
	fmt.Fprintf(stdout, "run %d: %s on %s, model %s%s, seed %d, range %s, status %s\nparams: %s\n",
		run.ID, run.Strategy, run.Task, run.Model, sim, run.Seed, run.Range, run.Status, run.Params)
	writeRuleLine(stdout, run)
	if *item < 0 {
		writeVerdictLegend(stdout, run.Strategy, items)
		for _, it := range items {
			fmt.Fprintf(stdout, "item %4d  %s  %s\n", it.Index, verdictLine(run.Strategy, it), it.Input)
		}
		return nil
	}
	var found *store.Item
	for i := range items {
		if items[i].Index == *item {
			found = &items[i]
		}
	}
	if found == nil {
		return usageError{fmt.Errorf("run %d has no item %d (see bench show %d)", runID, *item, runID)}
	}
	fmt.Fprintf(stdout, "item %d: %s\n%s  metrics: %s\ntokens: %d in, %d out; calls: %d\n",
		found.Index, found.Input, verdictDetail(run.Strategy, *found), metricsText(found.Metrics), found.PromptTokens, found.CompletionTokens, found.Calls)
	answers := results.RunAnswers(bench.Catalog{}, run)
	gold := answers.Gold(found.Index)
	if gold == "" {
		gold = "(none recorded: the task checks answers by rule)"
	}
	extracted := answers.Extracted(found.Index, found.Output)
	if extracted == "" {
		extracted = "(none)"
	}
	fmt.Fprintf(stdout, "gold: %s\nextracted answer: %s\n", gold, extracted)
	if found.Error != "" {
		fmt.Fprintf(stdout, "error: %s\n", found.Error)
	}
	writeProgramFailure(stdout, found.Detail)
	fmt.Fprintf(stdout, "output:\n%s\n", indent(found.Output))
	writeDebate(stdout, found.Detail)
	nodes, err := st.Nodes(ctx, runID, *item)
	if err != nil {
		return err
	}
	if len(nodes) > 0 {
		var d struct {
			Best int `json:"best"`
		}
		d.Best = -1
		_ = json.Unmarshal(found.Detail, &d)
		fmt.Fprintln(stdout, "\ntree (* path to the answer, + kept in the beam or, mcts, expanded; x pruned; value is the reward, visits the MCTS visit count):")
		if err := render.WriteTree(stdout, nodes, d.Best); err != nil {
			return err
		}
	}
	if c := reading.Of(run.Strategy).ViewOf(found.Detail).Conversation; c != nil && len(c.Threads) > 0 {
		fmt.Fprintf(stdout, "\nconversation:\n%s", c.Lines())
	}
	evs, err := results.ItemEvents(ctx, st, runID, *item)
	if err != nil {
		return err
	}
	if len(evs) > 0 {
		fmt.Fprintln(stdout, "\nevents (model calls, tool calls, user turns, verifier scores, the verdict):")
		if err := render.WriteEvents(stdout, evs); err != nil {
			return err
		}
	}
	steps, err := st.Steps(ctx, runID, *item)
	if err != nil {
		return err
	}
	if len(steps) > 0 {
		fmt.Fprintln(stdout, "\ntrajectory:")
		if err := render.WriteSteps(stdout, steps); err != nil {
			return err
		}
	}
	execs, err := st.Executions(ctx, runID, *item)
	if err != nil {
		return err
	}
	if len(execs) > 0 {
		fmt.Fprintln(stdout, "\nexecutions (programs run in the sandbox):")
		return render.WriteExecutions(stdout, execs)
	}
	return nil
}

// parseRunArg parses `RUN [flags]`: the run id first, then the flags.
func parseRunArg(fs *flag.FlagSet, args []string, usage string) (int64, error) {
	runArg, err := parseWithRun(fs, args)
	if err != nil {
		return 0, err
	}
	if runArg == "" {
		return 0, usageError{errors.New(usage)}
	}
	runID, err := strconv.ParseInt(runArg, 10, 64)
	if err != nil {
		return 0, usageError{fmt.Errorf("run %q: want a run id (see bench report)", runArg)}
	}
	return runID, nil
}

// parseWithRun parses the flags of a command taking one positional run
// argument, which may come before or after the flags (`bench show RUN
// --db F` and `bench show --db F RUN`); "" when none is given.
func parseWithRun(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	switch len(pos) {
	case 0:
		return "", nil
	case 1:
		return pos[0], nil
	}
	return "", usageError{fmt.Errorf("unexpected argument %q: give one run", pos[1])}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// metricsText prints metrics as "any_at_b=1 top1=1", sorted by name.
func metricsText(m map[string]float64) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+strconv.FormatFloat(render.Round(m[k]), 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}
