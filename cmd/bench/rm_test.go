package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// TestRmStatsVacuum deletes a run whose responses a later rerun replayed:
// the rerun's export is unchanged, db stats accounts for the bytes, vacuum
// shrinks the file; a running run is refused unless --force.
func TestRmStatsVacuum(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "rm.db")
	run := func(args ...string) string {
		t.Helper()
		code, out, stderr := cli(t, append(args, "--db", db)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	for range 2 {
		run("run", "--task", "game24", "--strategy", "tot", "--set", "b=2", "--range", "900:910")
	}
	run("run", "--task", "game24", "--strategy", "cot", "--set", "k=5", "--range", "900:950")
	before := run("export", "2", "--calls")
	stats := run("db", "stats")
	for _, want := range []string{"bytes per call", "blobs", "call_batches", "cache"} {
		if !strings.Contains(stats, want) {
			t.Errorf("db stats lacks %q:\n%s", want, stats)
		}
	}
	out := run("rm", "1", "3")
	if !strings.Contains(out, "removed 2 run(s)") || !strings.Contains(out, "bench db vacuum") {
		t.Errorf("rm: %s", out)
	}
	if after := run("export", "2", "--calls"); after != before {
		t.Error("removing run 1 changed the export of run 2, whose calls replayed it")
	}
	if list := run("list", "--db", db); !strings.Contains(list, "runs in "+db) || strings.Contains(list, "\n     1  ") {
		t.Errorf("list --db after rm:\n%s", list[strings.Index(list, "runs in"):])
	}
	size := func() int64 {
		var n int64
		for _, f := range []string{db, db + "-wal"} {
			if fi, err := os.Stat(f); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	full := size()
	if out := run("db", "vacuum"); !strings.Contains(out, "->") {
		t.Errorf("vacuum: %s", out)
	}
	if size() >= full {
		t.Errorf("vacuum left %d bytes of %d", size(), full)
	}
	if code, _, stderr := cli(t, "rm", "7", "--db", db); code != 2 || !strings.Contains(stderr, "run 7: not found") {
		t.Errorf("rm of a missing run: %d %s", code, stderr)
	}
	// A run that is running (here: never finished) is refused.
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateRun(context.Background(), store.Run{Task: "game24", Strategy: "cot", Model: "sim", Range: "0:1"})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "rm", "--db", db, fmtID(id))
	if code != 2 || !strings.Contains(stderr, "is running") || !strings.Contains(stderr, "--force") {
		t.Errorf("rm of a running run: %d %s", code, stderr)
	}
	run("rm", fmtID(id), "--force")
}

func fmtID(id int64) string { return strconv.FormatInt(id, 10) }
