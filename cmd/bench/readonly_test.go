package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyCommandsNeverCreate runs every command that only reads results
// on a database path that does not exist: each says so naming the path, exits
// 2, and leaves no file behind (no database, no -wal, no results folder, no
// --out file).
func TestReadOnlyCommandsNeverCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "results", "typo.db")
	out := filepath.Join(dir, "out")
	cases := [][]string{
		{"report"},
		{"report", "--experiment", "x", "--format", "csv"},
		{"show", "1"},
		{"show", "1", "--item", "900"},
		{"export", "1", "--calls", "--out", out + ".jsonl"},
		{"export", "1", "--format", "parquet", "--out", out},
		{"plot", "--out", out + ".svg"},
		{"list"},
		{"view", "--addr", "127.0.0.1:0"},
		{"db", "stats"},
		{"db", "vacuum"},
		{"rm", "1"},
		{"resume", "1"}, // continues a run, so the run must be there
		{"resume", "--last"},
	}
	for _, c := range cases {
		code, stdout, stderr := cli(t, append(c, "--db", missing)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c, code, stderr)
		}
		if want := "no database at " + missing; !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr %q lacks %q", c, stderr, want)
		}
		if c[0] == "list" && stdout != "" {
			t.Errorf("list printed before failing:\n%s", stdout)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("%v created %s", c, e.Name())
		}
	}
}
