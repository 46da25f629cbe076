package main

import (
	"encoding/json"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// The program-running configurations resume after SIGKILL to the numbers
// of an uninterrupted run: pal with a vote, and Self-Refine's PAL preset.
func TestPALRunsKilledResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	sandboxtest.Runner(t)
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{Latency: 15 * time.Millisecond}))
	defer srv.Close()
	for name, flags := range map[string][]string{
		"pal-sc":     {"--strategy", "pal", "--set", "k=3", "--set", "temperature=0.7"},
		"selfrefine": {"--preset", "selfrefine-gsm8k/pal"},
	} {
		dir := t.TempDir()
		args := func(db string) []string {
			return append([]string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "gsm8k",
				"--range", "0:10", "--concurrency", "2", "--json"}, flags...)
		}
		code, out, stderr := cli(t, args(filepath.Join(dir, "ref.db"))...)
		if code != 0 {
			t.Fatalf("%s reference run: %s", name, stderr)
		}
		var ref bench.Summary
		if err := json.Unmarshal([]byte(out), &ref); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, "killed.db")
		stored := killAfter(t, args(db), db, 3, 10)
		code, out, stderr = cli(t, "resume", "--last", "--db", db, "--json")
		if code != 0 {
			t.Fatalf("%s resume: %s", name, stderr)
		}
		var got bench.Summary
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.N != 10 || got.Status != "done" || got.Accuracy != ref.Accuracy || got.Calls != ref.Calls ||
			got.CompletionTokens != ref.CompletionTokens || !reflect.DeepEqual(got.Metrics, ref.Metrics) {
			t.Errorf("%s killed at %d items and resumed:\n%+v\nuninterrupted:\n%+v", name, stored, got, ref)
		}
		t.Logf("%s: killed after %d of 10 items; resumed to accuracy %.3f with %d calls (reference %.3f, %d)",
			name, stored, got.Accuracy, got.Calls, ref.Accuracy, ref.Calls)
	}
}
