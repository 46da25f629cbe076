package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// TestOneProcessWorksOnARun runs bench as a process of its own on a slow
// model and, while it works, tries what issue 43 found paid twice: bench
// resume, run --continue and merge of its run are refused in one line;
// once it is killed with SIGKILL (not yet reaped: a zombie), resume takes
// the run over at once and finishes it with the calls of one run.
func TestOneProcessWorksOnARun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{Latency: 100 * time.Millisecond}))
	defer srv.Close()
	dir := t.TempDir()
	args := func(db string) []string {
		return []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "game24", "--strategy", "cot",
			"--set", "k=2", "--range", "900:940", "--concurrency", "1", "--json"}
	}
	ref := runSummary(t, "reference run", args(filepath.Join(dir, "ref.db"))...)

	db := filepath.Join(dir, "held.db")
	child := exec.Command(benchBinary(t), args(db)...)
	child.Env = append(os.Environ(), childEnv+"=1")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	deadline := time.Now().Add(stallLimit)
	for countItems(t, db) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the child stored no items")
		}
		time.Sleep(5 * time.Millisecond)
	}
	refusals := map[string][]string{
		"resume":     {"resume", "1", "--db", db},
		"resume -l":  {"resume", "--last", "--db", db},
		"--continue": append(args(db)[:len(args(db))-1], "--continue"),
		"merge":      {"merge", "--out", filepath.Join(dir, "merged.db"), db},
	}
	for what, a := range refusals {
		code, _, stderr := cli(t, a...)
		line := strings.TrimSpace(stderr)
		if code != exitUsage || strings.Count(line, "\n") != 0 || !strings.Contains(line, "run 1 ") || !strings.Contains(line, "--force") ||
			!strings.Contains(line, "pid "+strconv.Itoa(child.Process.Pid)) {
			t.Errorf("%s while another process works on the run: exit %d, %q; want exit 2 and one line naming run 1, the holder's pid and --force", what, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "merged.db")); err == nil {
		t.Error("a refused merge left a database behind")
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: the holder is a zombie, gone all the same.
	time.Sleep(50 * time.Millisecond)
	got := runSummary(t, "resume of the killed holder's run", "resume", "1", "--db", db, "--json")
	child.Wait()
	if got.Status != "done" || got.N != 40 || got.Calls != ref.Calls || got.Accuracy != ref.Accuracy || got.PromptTokens != ref.PromptTokens {
		t.Errorf("resumed after the refusals and a SIGKILL:\n%+v\nuninterrupted:\n%+v", got, ref)
	}
}
