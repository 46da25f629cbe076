package main

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
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
		killAndResume(t, name, dir, args, 3, 10)
	}
}
