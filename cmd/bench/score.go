package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("score", stderr)
	taskName := fs.String("task", "", "task whose scorer to use (see bench list), or file:PATH for a data file's")
	in := fs.String("in", "", "JSON Lines file to score ('-' for stdin)")
	var o bench.ScoreOptions
	fs.StringVar(&o.GroupBy, "group-by", "", "field grouping samples of one instance (e.g. idx; idx when --vote is given): adds a vote per group")
	rule := fs.String("rule", "", "scoring rule (default the task's; game24: strict|paper; humaneval, mbpp: isolated|reference, where reference lets a program forge its verdict)")
	spec := fs.String("task-spec", "", taskSpecHelp)
	scorer := fs.String("scorer", "", scorerHelp)
	fs.IntVar(&o.Concurrency, "concurrency", 2, "code tasks: programs run in the sandbox at once")
	fs.StringVar(&o.Vote, "vote", "", "vote per group (--group-by, default idx): a vote key (game24 line|expression|canonical; hotpotqa, gsm8k, math500 and file tasks answer), or best (highest verifier_score) or weighted (verifier_score summed per answer)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch { // the file may also stand as the one argument: bench score --task humaneval LOG.jsonl
	case len(pos) == 1 && *in == "":
		*in = pos[0]
	case len(pos) > 0:
		return usageError{fmt.Errorf("unexpected argument %q: give one input, as --in FILE.jsonl or FILE.jsonl", pos[0])}
	}
	if err := applyScorer(rule, *scorer); err != nil {
		return usageError{err}
	}
	task, err := bench.OpenTask(*taskName, *spec, *rule)
	if err != nil {
		return usageError{err}
	}
	if *in == "" {
		return usageError{fmt.Errorf("no input: pass --in FILE.jsonl")}
	}
	r := io.Reader(os.Stdin)
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			return usageError{fmt.Errorf("open input: %w", err)}
		}
		defer f.Close()
		r = f
	}
	if o.Vote != "" && o.GroupBy == "" {
		o.GroupBy = "idx" // {idx, output, verifier_score} lines: samples of one problem share idx
	}
	if ex, ok := task.(tasks.Executed); ok { // a code task: its programs run in the sandbox
		if o.Concurrency < 1 {
			return usageError{fmt.Errorf("--concurrency %d: want at least 1", o.Concurrency)}
		}
		runner, err := sandbox.NewBwrap(ctx)
		if err != nil {
			return fmt.Errorf("task %s runs programs: %w", task.Name(), err)
		}
		var failed func() error
		task, failed = ex.WithExecutor(ctx, tasks.RunnerExecutor{Runner: runner})
		defer func() {
			if err := failed(); err != nil {
				fmt.Fprintln(stderr, "bench score:", err)
			}
		}()
	}
	if rule := tasks.Rule(task); tasks.RuleForgeable(rule) { // the verdicts on stdout carry the rule's short name only
		fmt.Fprintf(stderr, "bench score: WARNING: %s\n", render.RuleText(tasks.RuleName(task), true)+". "+render.ForgeableNote)
	}
	_, err = bench.ScoreLinesContext(ctx, task, r, stdout, o)
	if ie := (bench.InputError{}); errors.As(err, &ie) {
		return usageError{err} // the input file is the user's to fix: exit 2
	}
	return err
}
