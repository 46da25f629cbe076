package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// --max-cost on the simulator, priced through --prices: the run stops
// cleanly at the ceiling (status stopped, exit 1, one line naming how to
// continue), stops again under a ceiling still too low, and resuming with a
// ceiling high enough completes it to the numbers of an uninterrupted run.
func TestMaxCostStopsAndResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.json")
	// The ToT paper's GPT-4 prices, applied to the simulator.
	if err := os.WriteFile(prices, []byte(`{"sim": {"prompt": 30, "completion": 60}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// One call at a time, so that the ceiling is met at the same call in
	// every run.
	args := func(db string, extra ...string) []string {
		return append([]string{"run", "--db", db, "--task", "game24", "--strategy", "tot", "--set", "b=2",
			"--range", "900:920", "--concurrency", "1", "--prices", prices, "--json"}, extra...)
	}
	decode := func(out string) bench.Summary {
		t.Helper()
		var s bench.Summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
		return s
	}

	code, out, stderr := cli(t, args(filepath.Join(dir, "ref.db"))...)
	if code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	ref := decode(out)
	if ref.Cost <= 0 {
		t.Fatalf("the price file did not price sim: cost %v", ref.Cost)
	}

	db := filepath.Join(dir, "capped.db")
	ceiling := ref.Cost / 4
	code, out, stderr = cli(t, args(db, "--max-cost", fmt.Sprint(ceiling))...)
	if code != 1 {
		t.Fatalf("capped run: exit %d, want 1; stderr %q", code, stderr)
	}
	if out != "" {
		t.Errorf("a stopped run printed a summary: %q", out)
	}
	if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 ||
		!strings.Contains(stderr, "max-cost $") || !strings.Contains(stderr, "bench resume 1 --max-cost HIGHER") {
		t.Errorf("stderr %q: want one line naming the ceiling and `bench resume 1 --max-cost HIGHER`", stderr)
	}
	code, out, _ = cli(t, "report", "--db", db, "--format", "json")
	if code != 0 || !strings.Contains(out, `"stopped"`) {
		t.Errorf("report of the stopped run lacks status stopped: %s", out)
	}
	st, err := openStore(t.Context(), db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(t.Context(), 1)
	items, _ := st.Items(t.Context(), 1)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "stopped" || !strings.Contains(run.Error, "max-cost") || len(items) >= 20 {
		t.Fatalf("stopped run: status %q error %q, %d items", run.Status, run.Error, len(items))
	}

	// Still too low: stops again, with more spent.
	code, _, stderr = cli(t, "resume", "1", "--db", db, "--max-cost", fmt.Sprint(ceiling*2), "--json")
	if code != 1 || !strings.Contains(stderr, "--max-cost HIGHER") {
		t.Fatalf("resume under a low ceiling: exit %d, %q", code, stderr)
	}
	// High enough: the same numbers as the uninterrupted run.
	code, out, stderr = cli(t, "resume", "1", "--db", db, "--max-cost", fmt.Sprint(ref.Cost*10), "--json")
	if code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	got := decode(out)
	if got.Status != "done" || got.N != 20 || got.Accuracy != ref.Accuracy || got.Calls != ref.Calls ||
		got.PromptTokens != ref.PromptTokens || got.CompletionTokens != ref.CompletionTokens ||
		math.Abs(got.Cost-ref.Cost) > 1e-9 {
		t.Errorf("stopped, resumed:\n%+v\nuninterrupted:\n%+v", got, ref)
	}
	t.Logf("ceiling $%.4f stopped after %d of 20 items; resumed to accuracy %.2f, $%.4f (reference %.2f, $%.4f)",
		ceiling, len(items), got.Accuracy, got.Cost, ref.Accuracy, ref.Cost)
}

func TestBudgetFlagsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	base := []string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "0:1"}
	cases := []struct {
		args []string
		want string
	}{
		{append(base, "--concurrency", "lots"), "or auto"},
		{append(base, "--max-cost", "-1"), "--max-cost -1: must be at least 0"},
		{append(base, "--prices", filepath.Join(dir, "missing.json")), "--prices"},
		{append(base, "--concurrency", "auto", "--concurrency-max", "0"), "--concurrency-max 0"},
		{[]string{"resume", "1", "--db", db, "--max-cost", "x"}, "want US dollars"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// auto runs (in process the adaptive limit has nothing to adapt to).
	if code, _, stderr := cli(t, append(base, "--concurrency", "auto")...); code != 0 {
		t.Errorf("--concurrency auto: %s", stderr)
	}
}

// --concurrency auto against a server that answers 429 above two requests
// in flight: the run completes with the numbers of an in-process run.
func TestConcurrencyAutoThroughRateLimitedServer(t *testing.T) {
	t.Parallel()
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	inner := llm.NewServer(m, llm.ServerOptions{Latency: 5 * time.Millisecond})
	var inflight atomic.Int32
	var rejected atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			if inflight.Add(1) > 2 {
				inflight.Add(-1)
				rejected.Add(1)
				w.Header().Set("Retry-After-Ms", "2")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprint(w, `{"error": {"message": "slow down", "type": "rate_limit_exceeded"}}`)
				return
			}
			defer inflight.Add(-1)
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	flags := []string{"--task", "game24", "--strategy", "tot", "--set", "b=1", "--range", "900:906", "--json"}
	code, out, stderr := cli(t, append([]string{"run", "--db", filepath.Join(dir, "ref.db")}, flags...)...)
	if code != 0 {
		t.Fatalf("in-process run: %s", stderr)
	}
	var ref, got bench.Summary
	if err := json.Unmarshal([]byte(out), &ref); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = cli(t, append([]string{"run", "--db", filepath.Join(dir, "auto.db"), "--base-url", srv.URL + "/v1",
		"--concurrency", "auto", "--concurrency-max", "16", "--retries", "100"}, flags...)...)
	if code != 0 {
		t.Fatalf("--concurrency auto: %s", stderr)
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// Identical concurrent requests are sent once (llm.Cache), so even the
	// call count does not depend on timing.
	if got.Calls != ref.Calls || got.Accuracy != ref.Accuracy || got.N != ref.N || got.Status != "done" || got.Metrics["any_at_b"] != ref.Metrics["any_at_b"] {
		t.Errorf("through the rate-limited server:\n%+v\nin process:\n%+v", got, ref)
	}
	t.Logf("server answered 429 %d times; the run completed with %d calls", rejected.Load(), got.Calls)
}

func TestProgressShowsLimit(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	b := &progressBar{w: &buf, tty: true}
	b.update(bench.Progress{Done: 1, Total: 2, Limit: 7})
	if !strings.Contains(buf.String(), "limit 7") {
		t.Errorf("progress line %q lacks the adaptive limit", buf.String())
	}
	buf.Reset()
	b.update(bench.Progress{Done: 2, Total: 2})
	if strings.Contains(buf.String(), "limit") {
		t.Errorf("progress line %q shows a limit without --concurrency auto", buf.String())
	}
}

// An experiment stopped by its ceiling continues when run again with a
// higher one.
func TestMaxCostExperiment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.yaml")
	exp := filepath.Join(dir, "e.yaml")
	if err := os.WriteFile(prices, []byte("sim: {prompt: 30, completion: 60}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exp, []byte("name: e\ntask: game24\nrange: \"900:904\"\nstrategies:\n  - tot: {b: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "e.db")
	code, _, stderr := cli(t, "run", "-f", exp, "--db", db, "--prices", prices, "--max-cost", "0.05", "--concurrency", "1")
	if code != 1 || !strings.Contains(stderr, "higher --max-cost") {
		t.Fatalf("capped experiment: exit %d %q", code, stderr)
	}
	code, out, stderr := cli(t, "run", "-f", exp, "--db", db, "--prices", prices, "--max-cost", "100", "--concurrency", "1", "--json")
	if code != 0 || !strings.Contains(out, `"status":"done"`) {
		t.Fatalf("experiment rerun with a higher ceiling: exit %d %q %q", code, out, stderr)
	}
}
