package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestShowItem(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "hotpotqa", "--strategy", "cot", "--range", "0:2"); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := cli(t, "show", "1", "--db", db, "--item", "0")
	if code != 0 {
		t.Fatalf("%d %s", code, stderr)
	}
	if strings.Contains(out, "map[") || !strings.Contains(out, "em=0 f1=") || !strings.Contains(out, "gold: ") ||
		strings.Contains(out, "gold: (none") || !strings.Contains(out, "extracted answer: ") {
		t.Errorf("show:\n%s", out)
	}
}

// TestShowRunAnywhere: the run id may follow the flags, as in most
// commands (`bench show --db F 1`), and only one run is taken.
func TestShowRunAnywhere(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "io", "--range", "900:902"); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{{"show", "1", "--db", db}, {"show", "--db", db, "1"}, {"show", "--db", db, "1", "--item", "901"}} {
		if code, out, stderr := cli(t, args...); code != 0 || !strings.Contains(out, "run 1: io on game24") {
			t.Errorf("%q: %d %s %s", args, code, out, stderr)
		}
	}
	if code, _, stderr := cli(t, "show", "--db", db, "1", "2"); code != 2 || !strings.Contains(stderr, "give one run") {
		t.Errorf("two runs: %d %s", code, stderr)
	}
	if code, _, stderr := cli(t, "resume", "--db", db, "1"); code != 0 {
		t.Errorf("resume --db F RUN: %d %s", code, stderr)
	}
}
