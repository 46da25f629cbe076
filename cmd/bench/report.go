package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/store"
)

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	last := fs.Int("last", 0, "the most recent N runs (default: all)")
	ids := fs.String("runs", "", "comma-separated run ids")
	format := fs.String("format", "md", "md, csv or json")
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	f := store.RunFilter{Last: *last}
	if *ids != "" {
		for _, s := range strings.Split(*ids, ",") {
			id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return usageError{fmt.Errorf("--runs %q: want comma-separated run ids", *ids)}
			}
			f.IDs = append(f.IDs, id)
		}
	}
	st, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := st.Runs(ctx, f)
	if err != nil {
		return err
	}
	rows := make([]report.Row, 0, len(runs))
	for _, r := range runs {
		s, err := bench.Summarize(ctx, st, r.ID)
		if err != nil {
			return err
		}
		rows = append(rows, rowOf(s))
	}
	if err := report.Write(stdout, *format, rows); err != nil {
		return usageError{err}
	}
	return nil
}
