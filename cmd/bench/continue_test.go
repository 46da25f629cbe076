package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// TestRunContinue: bench run --continue resumes the unfinished run of the
// same configuration (here a shard stopped by its cost ceiling, as a task
// Slurm cancelled would be) instead of starting another, ends with the
// items of an uninterrupted run, and on a finished run starts nothing;
// without --continue the same command starts a new run.
func TestRunContinue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(prices, []byte(`{"sim": {"prompt": 30, "completion": 60}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(db string, extra ...string) []string {
		return append([]string{"run", "--preset", "tot-game24/tot-b5", "--set", "value_cache=item", "--range", "900:912",
			"--shard", "1/2", "--prices", prices, "--concurrency", "1", "--db", db}, extra...)
	}
	ref := filepath.Join(dir, "ref.db")
	if code, _, stderr := cli(t, args(ref)...); code != 0 {
		t.Fatalf("reference shard: %s", stderr)
	}
	db := filepath.Join(dir, "shard.db")
	if code, _, stderr := cli(t, args(db, "--continue", "--max-cost", "1")...); code != 1 || !strings.Contains(stderr, "max-cost") {
		t.Fatalf("capped shard: exit %d: %s", code, stderr)
	}
	if n := len(shardRunItems(t, db)[1]); n == 0 || n >= 6 {
		t.Fatalf("the capped shard kept %d of 6 items; want some, not all", n)
	}
	for range 2 { // continues the stopped run, then finds it done
		if code, _, stderr := cli(t, args(db, "--continue")...); code != 0 {
			t.Fatalf("continue: exit %d: %s", code, stderr)
		}
	}
	runs := storeRuns(t, db)
	if len(runs) != 1 || runs[0].Status != store.StatusDone {
		t.Fatalf("after --continue twice: %d runs (the first %s); want the one run, done", len(runs), runs[0].Status)
	}
	want, got := shardRunItems(t, ref)[1], shardRunItems(t, db)[1]
	if len(got) != 6 {
		t.Fatalf("continued shard holds %d items, want 6", len(got))
	}
	if d := differingItems(t, want, got); len(d) > 0 {
		t.Errorf("items %v of the continued shard differ from an uninterrupted one", d)
	}
	if code, _, stderr := cli(t, args(db)...); code != 0 {
		t.Fatalf("without --continue: %s", stderr)
	}
	if runs := storeRuns(t, db); len(runs) != 2 {
		t.Errorf("without --continue: %d runs, want a new second run", len(runs))
	}
}

// storeRuns lists a database's runs.
func storeRuns(t *testing.T, db string) []store.Run {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenExisting(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}
