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
	"reflect"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/cmd/bench/benchtest"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tools/toolstest"
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
	if v := os.Getenv(mcpChildEnv); v != "" { // a stdio MCP server (mcp_test.go)
		if err := toolstest.ServeStdio(v); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(childEnv) == "1" {
		// As main: SIGINT and SIGTERM end the command cleanly (bench proxy).
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	code := m.Run()
	if benchBuild.dir != "" {
		os.RemoveAll(benchBuild.dir)
	}
	os.Exit(code)
}

// benchBuild is bench built once per test binary without the race
// detector, for the tests that run bench as processes of its own (killed
// runs, serve-sim servers, proxies, Slurm and Kubernetes shards): those
// test what a user's binary does, and this test binary run in their place
// spent a fifth of the package's CPU in the race detector. The race
// detector still watches every command the tests run in process.
var benchBuild struct {
	once      sync.Once
	dir, path string
	err       error
}

// benchBinary is the path of that build (benchtest.Build: make test's
// bin/bench when it sets BENCH_BINARY); the test fails if it cannot be
// made. The processes get childEnv too, so this test binary can stand in.
func benchBinary(t testing.TB) string {
	t.Helper()
	b := &benchBuild
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "bench-bin-"); b.err == nil {
			b.path, b.err = benchtest.Build(b.dir)
		}
	})
	if b.err != nil {
		t.Fatalf("building bench for the tests that run it as a process: %v", b.err)
	}
	return b.path
}

// killAfter runs bench with args as a child process writing db, SIGKILLs
// it (no cleanup runs) once it has stored at least n items, and returns
// how many it had stored; it fails the test if the child finishes first,
// with total or more items, or stores fewer than n within stallLimit.
func killAfter(t *testing.T, args []string, db string, n, total int) int {
	t.Helper()
	cmd := exec.Command(benchBinary(t), args...)
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
// counts with an uninterrupted run of the same seed. It is the SIGKILL
// test of the engine: that every strategy resumes to the same items is
// bench's TestEverySampleIsASample's kill leg, so the per-strategy SIGKILL
// tests (pal, selfrefine pal, debate, crosswords and creative ToT) were
// folded into it (issue 34); program and MCP runs keep theirs, for the
// orphaned programs and servers a SIGKILL leaves.
func TestKilledRunResumesToTheSameNumbers(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
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

	killAndResume(t, "tot b=1", dir, args, 6, 20)
}

// runSummary runs bench with args (which end in --json) and returns the
// summary it printed, failing the test on a non-zero exit.
func runSummary(t *testing.T, what string, args ...string) bench.Summary {
	t.Helper()
	code, out, stderr := cli(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", what, code, stderr)
	}
	var s bench.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%s: %v: %s", what, err, out)
	}
	return s
}

// killAndResume runs args(dir/ref.db) uninterrupted, then args(dir/killed.db)
// killed with SIGKILL once killAt items are stored, resumes it, and fails
// the test unless the resumed run matches the uninterrupted one: all total
// items done, the same accuracy, calls, tokens and metrics. It returns
// both summaries and how many items the killed run had stored.
func killAndResume(t *testing.T, what, dir string, args func(db string) []string, killAt, total int) (ref, got bench.Summary, stored int) {
	t.Helper()
	ref = runSummary(t, what+" reference run", args(filepath.Join(dir, "ref.db"))...)
	db := filepath.Join(dir, "killed.db")
	stored = killAfter(t, args(db), db, killAt, total)
	got = runSummary(t, what+" resume", "resume", "--last", "--db", db, "--json")
	if got.N != total || got.Status != "done" || got.Accuracy != ref.Accuracy || got.Calls != ref.Calls ||
		got.PromptTokens != ref.PromptTokens || got.CompletionTokens != ref.CompletionTokens || !reflect.DeepEqual(got.Metrics, ref.Metrics) {
		t.Errorf("%s killed at %d items and resumed:\n%+v\nuninterrupted:\n%+v", what, stored, got, ref)
	}
	t.Logf("%s: killed after %d of %d items; resumed to accuracy %.3f with %d calls, %d+%d tokens (reference %.3f, %d, %d+%d)",
		what, stored, total, got.Accuracy, got.Calls, got.PromptTokens, got.CompletionTokens, ref.Accuracy, ref.Calls, ref.PromptTokens, ref.CompletionTokens)
	return ref, got, stored
}
