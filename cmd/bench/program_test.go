package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/store"
)

// programFlags run the README's CoT-SC program, python/examples/cotsc.py,
// as the README runs it: --strategy program --set cmd='/usr/bin/python3
// <path>' on Game of 24. The path is relative to the working directory
// bench runs cmd in (the test's, for the child process too), so that the
// run's configuration, and its draws, do not depend on the checkout's
// place.
func programFlags(t *testing.T) []string {
	t.Helper()
	const python, script = "/usr/bin/python3", "../../python/examples/cotsc.py"
	for _, f := range []string{python, script} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s absent (%v): scripts/install-sandbox.sh installs the interpreter", f, err)
		}
	}
	return []string{"--task", "game24", "--strategy", "program", "--set", "cmd=" + python + " " + script,
		"--set", "k=5", "--set", "temperature=0.7", "--set", "timeout=60s"}
}

// A program run killed with SIGKILL (its programs orphaned, their
// endpoints gone) resumes to the numbers and outputs of an uninterrupted
// run; the same run again into the same database makes no model call and
// stores the same outputs; and it compares, paired, with native cotsc on
// the same items.
func TestProgramRunKilledResumesAndCompares(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	if testing.Short() {
		t.Skip("starts a child process")
	}
	srv, served := countingSimWith(t, sim.DefaultParams(), 20*time.Millisecond)
	dir := t.TempDir()
	args := func(db string) []string {
		return append([]string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--range", "900:916", "--concurrency", "2", "--json"},
			programFlags(t)...)
	}
	refDB := filepath.Join(dir, "ref.db")
	code, out, stderr := cli(t, args(refDB)...)
	if code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	var ref bench.Summary
	if err := json.Unmarshal([]byte(out), &ref); err != nil {
		t.Fatal(err)
	}
	if served.Load() != int64(ref.Calls) || ref.Calls != 16 || ref.Metrics["failed"] != 0 {
		t.Fatalf("reference run: %d requests served, summary %+v", served.Load(), ref)
	}

	// The same run again into the same database: every call replays.
	served.Store(0)
	code, out, stderr = cli(t, args(refDB)...)
	if code != 0 {
		t.Fatalf("rerun: %s", stderr)
	}
	var again bench.Summary
	if err := json.Unmarshal([]byte(out), &again); err != nil {
		t.Fatal(err)
	}
	if served.Load() != 0 || again.RunID == ref.RunID || again.Accuracy != ref.Accuracy || again.Calls != ref.Calls {
		t.Errorf("rerun made %d model calls (want 0): %+v\nfirst run %+v", served.Load(), again, ref)
	}
	sameOutputs(t, refDB, ref.RunID, refDB, again.RunID)

	db := filepath.Join(dir, "killed.db")
	stored := killAfter(t, args(db), db, 4, 16)
	code, out, stderr = cli(t, "resume", "--last", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	var got bench.Summary
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.N != 16 || got.Status != "done" || got.Accuracy != ref.Accuracy || got.Calls != ref.Calls ||
		got.PromptTokens != ref.PromptTokens || got.CompletionTokens != ref.CompletionTokens || !reflect.DeepEqual(got.Metrics, ref.Metrics) {
		t.Errorf("killed at %d items and resumed:\n%+v\nuninterrupted:\n%+v", stored, got, ref)
	}
	sameOutputs(t, refDB, ref.RunID, db, got.RunID)
	t.Logf("killed after %d of 16 items; resumed to accuracy %.3f with %d calls, %d+%d tokens (reference %.3f, %d, %d+%d)",
		stored, got.Accuracy, got.Calls, got.PromptTokens, got.CompletionTokens, ref.Accuracy, ref.Calls, ref.PromptTokens, ref.CompletionTokens)

	// Native cotsc on the same items, then the paired comparison.
	code, out, stderr = cli(t, "run", "--db", refDB, "--base-url", srv.URL+"/v1", "--range", "900:916", "--json",
		"--task", "game24", "--strategy", "cotsc", "--set", "k=5", "--set", "temperature=0.7")
	if code != 0 {
		t.Fatalf("native run: %s", stderr)
	}
	var native bench.Summary
	if err := json.Unmarshal([]byte(out), &native); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = cli(t, "compare", "--db", refDB, "--format", "json", "--baseline", itoa(native.RunID), itoa(ref.RunID))
	if code != 0 {
		t.Fatalf("compare: %s", stderr)
	}
	var cmp struct {
		Comparisons []struct {
			Run, Baseline, N     int64
			Accuracy, Difference float64
			BaselineAccuracy     float64 `json:"baseline_accuracy"`
			Test                 string
		}
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(cmp.Comparisons) != 1 {
		t.Fatalf("%s", out)
	}
	c := cmp.Comparisons[0]
	if c.Run != ref.RunID || c.Baseline != native.RunID || c.N != 16 || c.Test != "McNemar exact" ||
		c.Accuracy != ref.Accuracy || c.BaselineAccuracy != native.Accuracy {
		t.Errorf("comparison %+v (program %v, native %v)", c, ref.Accuracy, native.Accuracy)
	}
}

// sameOutputs checks two stored runs answered every item alike.
func sameOutputs(t *testing.T, db1 string, run1 int64, db2 string, run2 int64) {
	t.Helper()
	items := func(db string, run int64) []store.Item {
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		its, err := st.Items(context.Background(), run)
		if err != nil {
			t.Fatal(err)
		}
		return its
	}
	a, b := items(db1, run1), items(db2, run2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("runs %d and %d: %d and %d items", run1, run2, len(a), len(b))
	}
	for i := range a {
		if a[i].Index != b[i].Index || a[i].Output != b[i].Output || a[i].Correct != b[i].Correct {
			t.Errorf("item %d: run %d answered %q, run %d %q", a[i].Index, run1, a[i].Output, run2, b[i].Output)
		}
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
