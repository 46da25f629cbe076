package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The front door of issue 43 part 6: help for every command and
// subcommand, a suggestion for a mistyped command, task or strategy, and
// one-line refusals of a folder or another application's database as --db.
func TestFrontDoor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		args   []string
		code   int
		stdout string // in stdout ("" none expected)
		stderr string // in stderr
	}{
		{[]string{"db", "-h"}, 0, "", "bench db stats"},
		{[]string{"prompts", "-h"}, 0, "", "bench prompts import"},
		{[]string{"mcp", "-h"}, 0, "", "bench mcp serve --task"},
		{[]string{"mcp", "--help"}, 0, "", "bench mcp serve --task"},
		{[]string{"help", "run"}, 0, "", "-range"},
		{[]string{"help", "report"}, 0, "", "-format"},
		{[]string{"repor"}, exitUsage, "", `unknown command "repor": did you mean report?`},
		{[]string{"run", "--task", "game42", "--strategy", "io"}, exitUsage, "", `unknown task "game42": did you mean game24?`},
		{[]string{"run", "--task", "game24", "--strategy", "cott"}, exitUsage, "", `did you mean cot?`},
		{[]string{"list", "presetz"}, exitUsage, "", "did you mean presets?"},
		{[]string{"run", "--db", dir + "/t.db", "--task", "tau-airline", "--strategy", "io", "--range", "0:1"}, exitUsage, "", "conversations with a simulated user: run them with react"},
		{[]string{"run", "--db", dir + "/t.db", "--task", "game24", "--strategy", "cot", "--user-model", "x", "--range", "900:901"}, exitUsage, "", "--user-model: task game24 has no simulated user"},
		{[]string{"list", "strat"}, 0, "strategies (set parameters", ""},
		{[]string{"help"}, 0, "bench mcp serve --task", ""},
		{[]string{"mcp"}, exitUsage, "", "bench mcp: want `bench mcp serve"},
		{[]string{"run", "--db", dir, "--task", "game24", "--strategy", "io", "--range", "900:901"}, exitUsage, "", "is a folder, not a database file; pass --db FILE.db"},
	}
	for _, tc := range cases {
		code, out, stderr := cli(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("bench %s: exit %d, stdout %.200q, stderr %.300q; want exit %d, %q, %q", strings.Join(tc.args, " "), code, out, stderr, tc.code, tc.stdout, tc.stderr)
		}
		if strings.Contains(stderr, "bench mcp: bench mcp") {
			t.Errorf("bench %s: the prefix twice: %q", strings.Join(tc.args, " "), stderr)
		}
		if code == exitUsage {
			oneLine(t, strings.Join(tc.args, " "), stderr)
		}
	}
	// bench list with a section shows it alone.
	_, all, _ := cli(t, "list")
	_, presets, _ := cli(t, "list", "presets")
	if strings.Contains(presets, "strategies (") || !strings.Contains(all, presets) || len(presets) >= len(all)/2 {
		t.Errorf("bench list presets is not the presets section alone (%d of %d bytes)", len(presets), len(all))
	}
}

// bench run on another application's SQLite file is refused before
// anything writes to it: not even its journal mode changes.
func TestRunRefusesForeignDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.db")
	conn, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes VALUES (1, 'mine')`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	before, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--db", foreign, "--task", "game24", "--strategy", "io", "--range", "900:901"},
		{"rm", "1", "--db", foreign},
		{"db", "vacuum", "--db", foreign},
	} {
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "not a reasonbench database") {
			t.Errorf("bench %s on another application's database: exit %d, %q", strings.Join(args, " "), code, stderr)
		}
		oneLine(t, args[0], stderr)
	}
	after, _ := os.ReadFile(foreign)
	if !bytes.Equal(before, after) {
		t.Error("the foreign database changed")
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(foreign + suffix); err == nil {
			t.Errorf("%s was created", filepath.Base(foreign+suffix))
		}
	}
}
