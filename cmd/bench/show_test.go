package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestShowItem(t *testing.T) {
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
