package main

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// programFlags run CoT-SC written in Python (bench/testdata/program) as
// --strategy program on Game of 24.
func programFlags(t *testing.T) []string {
	t.Helper()
	script, err := filepath.Abs("../../bench/testdata/program/cotsc.py")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := filepath.Abs("../../prompts/game24/cot.txt")
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--task", "game24", "--strategy", "program", "--set", "cmd=python3 " + script,
		"--set", "template=" + tmpl, "--set", "k=5", "--set", "temperature=0.7", "--set", "timeout=60s"}
}

// A program run killed with SIGKILL (its programs orphaned, their
// endpoints gone) resumes to the numbers and outputs of an uninterrupted
// run; and it compares, paired, with native cotsc on the same items.
func TestProgramRunKilledResumesAndCompares(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{Latency: 20 * time.Millisecond}))
	defer srv.Close()
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
	t.Logf("killed after %d of 16 items; resumed to accuracy %.3f with %d calls (reference %.3f, %d)",
		stored, got.Accuracy, got.Calls, ref.Accuracy, ref.Calls)

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

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
