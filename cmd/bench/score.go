package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/reasonbench/reasonbench/bench"
)

func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("score", stderr)
	taskName := fs.String("task", "", "task whose scorer to use (see bench list), or file:PATH for a data file's")
	in := fs.String("in", "", "JSON Lines file to score ('-' for stdin)")
	var o bench.ScoreOptions
	fs.StringVar(&o.GroupBy, "group-by", "", "field grouping samples of one instance (e.g. idx): adds a majority vote per group")
	rule := fs.String("rule", "", "scoring rule (default the task's; game24: strict|paper)")
	spec := fs.String("task-spec", "", taskSpecHelp)
	scorer := fs.String("scorer", "", scorerHelp)
	fs.StringVar(&o.Vote, "vote", "", "vote key with --group-by: game24 line|expression|canonical, hotpotqa, gsm8k and file tasks answer (default: the task's first)")
	if err := parse(fs, args); err != nil {
		return err
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
		return usageError{fmt.Errorf("--vote needs --group-by")}
	}
	_, err = bench.ScoreLines(task, r, stdout, o)
	if ie := (bench.InputError{}); errors.As(err, &ie) {
		return usageError{err} // the input file is the user's to fix: exit 2
	}
	return err
}
