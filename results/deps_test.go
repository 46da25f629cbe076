package results

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadSideImportsNoEngine keeps the read layers (view, results,
// render, runinfo) from pulling in the engine, a strategy's or a task's
// runtime, or the simulator: they read strategies' details through
// strategies/reading and ask what a run names of tasks and strategies
// through runinfo.Catalog, which their callers pass in.
func TestReadSideImportsNoEngine(t *testing.T) {
	const mod = "github.com/reasonbench/reasonbench/"
	out, err := exec.Command("go", "list", "-deps", mod+"view", mod+"results", mod+"render", mod+"runinfo").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	forbidden := map[string]bool{}
	for _, p := range []string{"sandbox", "endpoint", "search", "evaluators", "verify", "catalog", "strategies", "bench", "tasks"} {
		forbidden[mod+p] = true
	}
	for _, d := range deps {
		if forbidden[d] || strings.HasPrefix(d, mod+"tasks/") || strings.HasPrefix(d, mod+"simulator/") || d == mod+"simulator" {
			t.Errorf("the read side depends on %s: read details through strategies/reading and ask the run's tasks and strategies through runinfo.Catalog", d)
		}
	}
}
