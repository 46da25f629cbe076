package results

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadSideImportsNoEngine keeps reading a report from pulling in the
// engine or the simulator: results and view depend on neither bench nor
// simulator (summary and catalog carry what they need).
func TestReadSideImportsNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/reasonbench/reasonbench/results", "github.com/reasonbench/reasonbench/view").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		if d == "github.com/reasonbench/reasonbench/bench" || strings.HasPrefix(d, "github.com/reasonbench/reasonbench/simulator") {
			t.Errorf("results or view depends on %s: read through summary/, catalog/ and strategies' Reading instead", d)
		}
	}
}
