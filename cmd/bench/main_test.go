package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/reasonbench/reasonbench/bench"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// cli runs the CLI in process and returns exit code, stdout and stderr.
//
// It runs bench in this process, and the slowest tests that call it (those
// that wait on servers, child processes or Slurm jobs) call t.Parallel to
// overlap (issue 34; go test runs GOMAXPROCS of them at once). A test may
// only if it sets no environment variable (the commands read OPENAI_API_KEY
// and the array variables; t.Setenv tests stay sequential and end before
// the parallel ones start), changes no directory, and keeps to its own
// temporary folders and loopback servers on port 0.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	empty := filepath.Join(dir, "empty.db") // a database with no runs
	st, err := store.Open(context.Background(), empty)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	corrupt := filepath.Join(dir, "corrupt.db")
	if err := os.WriteFile(corrupt, bytes.Repeat([]byte("not a database "), 500), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "--db", db, "--task", "chess", "--strategy", "cot"}, `unknown task "chess" (known: ` + knownTasks() + `; or file:PATH.jsonl for your own data)`},
		{[]string{"run", "--db", db, "--task", "game24", "--strategy", "magic"}, `unknown strategy "magic"`},
		{[]string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--set", "kk=3"}, `unknown parameter "kk"`},
		{[]string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--set", "k=0"}, "must be at least 1"},
		{[]string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "10:5"}, "bad range"},
		{[]string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--sim-skill", "3"}, "sim skill"},
		{[]string{"run", "--db", corrupt, "--task", "game24", "--strategy", "cot", "--range", "0:1"}, "move it aside or pass another --db"},
		{[]string{"run", "--db", db, "--preset", "tot-game24/nope"}, "unknown preset"},
		{[]string{"report", "--db", corrupt}, "move it aside"},
		{[]string{"report", "--db", db, "--format", "xml"}, "unknown format"},
		{[]string{"score", "--task", "game24", "--in", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{"show", "--db", db}, "usage: bench show RUN"},
		{[]string{"resume", "--db", empty, "--last"}, "no unfinished run"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, stderr, c.want)
		}
		if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 && !strings.Contains(stderr, "Usage") {
			t.Errorf("%v: %d lines of error, want one:\n%s", c.args, lines, stderr)
		}
	}
	b, _ := os.ReadFile(corrupt)
	if !bytes.HasPrefix(b, []byte("not a database")) {
		t.Error("the corrupt database was modified")
	}
}

func TestRunReportShowScore(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	code, out, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:905", "--set", "k=4", "--json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"run_id", "n", "accuracy", "best_of_k", "prompt_tokens", "completion_tokens", "calls", "wall_seconds"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("--json lacks %s: %s", k, out)
		}
	}
	if sum["n"].(float64) != 5 || sum["simulated"] != true {
		t.Errorf("summary %v", sum)
	}
	if code, out, _ = cli(t, "run", "--db", db, "--preset", "tot-game24/tot-b1", "--range", "900:902"); code != 0 || !strings.Contains(out, "| tot ") {
		t.Fatalf("preset run: %d %s", code, out)
	}
	code, out, _ = cli(t, "report", "--db", db)
	if code != 0 || !strings.Contains(out, "sim (simulated)") || !strings.Contains(out, "| cot ") || !strings.Contains(out, "| tot ") {
		t.Errorf("report: %d\n%s", code, out)
	}
	code, out, _ = cli(t, "report", "--db", db, "--format", "csv", "--last", "1")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.HasPrefix(out, "run,task,strategy") {
		t.Errorf("csv report: %q", out)
	}
	code, out, _ = cli(t, "show", "2", "--db", db, "--item", "900")
	if code != 0 || !strings.Contains(out, "tree (") || !strings.Contains(out, "* [0] (root)") {
		t.Errorf("show tree: %d\n%s", code, out)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"puzzle": "4 5 6 10", "output": "Answer: (4 * 5) + (10 - 6) = 24", "id": 7}
{"puzzle": "4 5 6 10", "output": "Answer: 4 * 6 = 24"}
`), 0o644)
	code, out, _ = cli(t, "score", "--task", "game24", "--in", in)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], `"correct":true`) || !strings.Contains(lines[0], `"id":7`) ||
		!strings.Contains(lines[1], `"correct":false`) || lines[2] != `{"summary":{"n":2,"correct":1,"accuracy":0.5,"rule":"game24/strict"}}` {
		t.Errorf("score: %d\n%s", code, out)
	}
	if code, out, _ = cli(t, "list"); code != 0 || !strings.Contains(out, "tot-game24/tot-b5") || !strings.Contains(out, "vote_key") {
		t.Errorf("list: %d\n%s", code, out)
	}
}

func TestReflexionThroughTheCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	code, out, stderr := cli(t, "run", "--db", db, "--task", "hotpotqa", "--strategy", "reflexion", "--range", "0:8",
		"--set", "trials=3", "--experiment", "rx", "--json")
	if code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if pt, ok := sum["per_trial"].([]any); !ok || len(pt) != 3 {
		t.Errorf("per_trial = %v, want 3 values", sum["per_trial"])
	}
	svg := filepath.Join(dir, "trials.svg")
	if code, _, stderr = cli(t, "plot", "--db", db, "--experiment", "rx", "--kind", "trials", "--out", svg); code != 0 {
		t.Fatalf("plot --kind trials: %s", stderr)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("no SVG written: %v", err)
	}
	code, out, _ = cli(t, "report", "--db", db, "--experiment", "rx", "--by", "trial")
	if code != 0 || strings.Count(out, "| reflexion ") != 3 {
		t.Errorf("report --by trial: %d\n%s", code, out)
	}
	code, out, _ = cli(t, "show", "1", "--db", db, "--item", "0")
	if code != 0 || !strings.Contains(out, "--- trial 1") {
		t.Errorf("show: %d\n%s", code, out)
	}
}

// knownTasks lists the registry's tasks as the error names them.
func knownTasks() string {
	var names []string
	for _, t := range bench.Tasks() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}
