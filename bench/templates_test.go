package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// TestDeclaredTemplatesAreRendered: every template a strategy's registry
// line declares for its probe is one the probe's run renders, so the
// engine's check refuses no configuration that would have run. Each
// declared template in turn is replaced (through a --prompts folder) by
// one that fails when executed; the probe's run must then fail on it.
//
// A template the probe cannot reach on the simulator is listed below with
// why; the test fails when a listed one is reached (the entry is stale).
func TestDeclaredTemplatesAreRendered(t *testing.T) {
	t.Parallel()
	unreached := map[string]string{
		// The simulated programs pass their own internal tests, so no
		// implementation is ever improved (reflexion_code_test.go drives
		// the improvements with a scripted model).
		"reflexion_code/reflexion_code_reflexion_system": "no improvement on the simulator",
		"reflexion_code/reflexion_code_reflect_system":   "no improvement on the simulator",
	}
	ctx := context.Background()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strategies.Registry() {
		cfg := probeConfig(s)
		ts, err := LookupTask(cfg.Task)
		if err != nil {
			continue // not in this build
		}
		v, err := param.Resolve(s.Params, cfg.Params)
		if err != nil {
			t.Fatal(err)
		}
		task := ts.New()
		for _, name := range s.Templates(v) {
			full := tasks.TemplateName(lib, task, name)
			t.Run(s.Name+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, filepath.FromSlash(full)+".txt")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(`{{template "undefined"}}`), 0o644); err != nil {
					t.Fatal(err)
				}
				cfg := cfg
				cfg.PromptDir = dir
				_, err := (&Engine{Store: tempStore(t)}).Run(ctx, cfg)
				rendered := err != nil && strings.Contains(err.Error(), full)
				why, listed := unreached[s.Name+"/"+name]
				switch {
				case !rendered && !listed:
					t.Errorf("%s declares template %s, but its probe ran without it (%v)", s.Name, full, err)
				case rendered && listed:
					t.Errorf("%s's probe renders %s, listed as unreached (%s): drop the entry", s.Name, full, why)
				}
			})
		}
	}
}
