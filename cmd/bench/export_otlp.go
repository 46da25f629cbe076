package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/reasonbench/reasonbench/otlp"
	"github.com/reasonbench/reasonbench/store"
)

// exportOTLP writes the runs' events as traces to a file (OTLP/JSON), to
// an OTLP/HTTP endpoint, or both.
func exportOTLP(ctx context.Context, db string, ids []int64, file, endpoint string, stderr io.Writer) error {
	st, err := openReading(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs := make([]store.Run, len(ids))
	for i, id := range ids {
		if runs[i], err = st.GetRun(ctx, id); err != nil {
			return usageError{err}
		}
	}
	if file != "" {
		f, err := os.Create(file)
		if err != nil {
			return usageError{err}
		}
		exp, err := otlp.FileExporter(ctx, f)
		if err == nil {
			err = otlp.Export(ctx, st, runs, exp)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(file)
			return err
		}
		fmt.Fprintf(stderr, "bench export: traces of %d run(s) in %s (OTLP/JSON)\n", len(runs), file)
	}
	if endpoint != "" {
		exp, err := otlp.HTTPExporter(ctx, endpoint)
		if err != nil {
			return usageError{err}
		}
		if err := otlp.Export(ctx, st, runs, exp); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench export: traces of %d run(s) sent to %s\n", len(runs), endpoint)
	}
	return nil
}
