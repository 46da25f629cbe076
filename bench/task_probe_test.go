package bench

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks"
)

// TestEveryTaskRunsItsProbe runs every registered task's probe with io on
// the simulator: every item of the range is answered, stored without an
// error and scored. A task joins by its registry line, which must carry a
// probe, so a task no test runs cannot pass.
func TestEveryTaskRunsItsProbe(t *testing.T) {
	t.Parallel()
	for _, spec := range Tasks() {
		t.Run(spec.Name, func(t *testing.T) {
			if spec.Probe.Range == "" {
				t.Fatalf("task %s has no Probe (TaskSpec.Probe: a small range)", spec.Name)
			}
			r, err := tasks.ParseRange(spec.Probe.Range, 1<<30)
			lo, hi := r.Start, r.End
			if err != nil || hi <= lo || hi-lo > 5 {
				t.Fatalf("task %s: probe range %q: want a few items (%v)", spec.Name, spec.Probe.Range, err)
			}
			st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "p.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := DefaultConfig()
			cfg.Task, cfg.Strategy, cfg.Range = spec.Name, "io", spec.Probe.Range
			if spec.Probe.Strategy != "" {
				cfg.Strategy, cfg.Params = spec.Probe.Strategy, spec.Probe.Params
			}
			sum, err := (&Engine{Store: st}).Run(t.Context(), cfg)
			if errors.Is(err, sandbox.ErrUnavailable) && os.Getenv("BENCH_REQUIRE_SANDBOX") == "" {
				t.Skipf("no sandbox: %v", err)
			}
			if err != nil {
				t.Fatalf("%s on %s %s: %v", cfg.Strategy, spec.Name, spec.Probe.Range, err)
			}
			items, err := st.Items(t.Context(), sum.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != hi-lo || sum.N != hi-lo {
				t.Fatalf("task %s: %d items stored (summary %d), want %d", spec.Name, len(items), sum.N, hi-lo)
			}
			for _, it := range items {
				if it.Error != "" || it.Output == "" {
					t.Errorf("task %s item %d: error %q, output %q", spec.Name, it.Index, it.Error, it.Output)
				}
			}
		})
	}
}
