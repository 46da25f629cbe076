package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/reasonbench/reasonbench/bench"
)

func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("score", stderr)
	taskName := fs.String("task", "", "task whose scorer to use (see bench list)")
	in := fs.String("in", "", "JSON Lines file to score ('-' for stdin)")
	if err := parse(fs, args); err != nil {
		return err
	}
	ts, err := bench.LookupTask(*taskName)
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
	_, err = bench.ScoreLines(ts.New(), r, stdout)
	return err
}
