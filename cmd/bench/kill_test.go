package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// The test binary doubles as the bench command when this variable is set,
// so a test can run bench as a real process and kill it.
const childEnv = "REASONBENCH_TEST_AS_BENCH"

// stallLimit is how long a test waits for a run in another process or
// goroutine to store the items it kills it after: only a guard against a
// hung run, so generous, because the race detector on a busy machine is
// slow (issue 25: the suite must pass with two other builds running).
const stallLimit = 5 * time.Minute

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		// As main: SIGINT and SIGTERM end the command cleanly (bench proxy).
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// killAfter runs bench with args as a child process writing db, SIGKILLs
// it (no cleanup runs) once it has stored at least n items, and returns
// how many it had stored; it fails the test if the child finishes first,
// with total or more items, or stores fewer than n within stallLimit.
func killAfter(t *testing.T, args []string, db string, n, total int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(stallLimit)
	for countItems(t, db) < n {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child stored fewer than %d items in %v", n, stallLimit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	stored := countItems(t, db)
	if stored >= total {
		t.Fatalf("the child finished (%d items) before it was killed", stored)
	}
	return stored
}

func countItems(t *testing.T, db string) int {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)&mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil {
		return 0 // not created yet
	}
	return n
}

// TestKilledRunResumesToTheSameNumbers kills `bench run` with SIGKILL
// halfway through, resumes it, and compares the final numbers and call
// counts with an uninterrupted run of the same seed.
func TestKilledRunResumesToTheSameNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{Latency: 15 * time.Millisecond}))
	defer srv.Close()
	dir := t.TempDir()
	args := func(db string) []string {
		return []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "game24", "--strategy", "tot",
			"--set", "b=1", "--range", "900:920", "--concurrency", "2", "--json"}
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
	stored := killAfter(t, args(db), db, 6, 20)

	code, out, stderr = cli(t, "resume", "--last", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	var got bench.Summary
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.N != 20 || got.Status != "done" {
		t.Fatalf("after resume: %+v", got)
	}
	if got.Accuracy != ref.Accuracy || got.Calls != ref.Calls || got.PromptTokens != ref.PromptTokens ||
		got.CompletionTokens != ref.CompletionTokens || got.Metrics["any_at_b"] != ref.Metrics["any_at_b"] {
		t.Errorf("killed at %d items and resumed:\n%+v\nuninterrupted:\n%+v", stored, got, ref)
	}
	t.Logf("killed after %d of 20 items; resumed to accuracy %.2f with %d calls (reference %.2f, %d calls)",
		stored, got.Accuracy, got.Calls, ref.Accuracy, ref.Calls)
}
