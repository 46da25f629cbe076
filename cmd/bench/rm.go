package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/store"
)

func cmdRm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("rm", stderr)
	keepCache := fs.Bool("keep-cache", false, "keep the response cache entries the runs stored (a rerun of them then needs no model calls)")
	force := fs.Bool("force", false, "also delete runs whose status is running (their process died; bench resume would finish them)")
	db := dbFlag(fs)
	ids, err := parseRunIDArgs(fs, args, "usage: bench rm RUN... [--keep-cache] [--force]")
	if err != nil {
		return err
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	d, err := st.DeleteRuns(ctx, ids, *keepCache, *force)
	switch {
	case errors.Is(err, store.ErrRunRunning):
		return usageError{fmt.Errorf("%w: stop it first (a run whose process died stays running: bench resume it, or pass --force)", err)}
	case errors.Is(err, store.ErrNotFound):
		return usageError{err}
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "removed %d run(s): %d items, %d calls, %d cache entries; %d unused blobs (%s) collected\n",
		d.Runs, d.Items, d.Calls, d.CacheEntries, d.Blobs, humanBytes(d.Bytes))
	fmt.Fprintf(stdout, "the freed pages are reused by later runs; bench db vacuum --db %s shrinks the file\n", *db)
	return nil
}

// humanBytes writes a size for people: 11.6 MB.
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
