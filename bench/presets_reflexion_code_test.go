package bench

import (
	"testing"

	"github.com/reasonbench/reasonbench/strategies"
)

// The programming presets are the logged runs: the task, its whole range,
// the protocol version of the logged MBPP run, its iterations, and
// parameters the strategy accepts.
func TestReflexionCodePresets(t *testing.T) {
	spec, err := strategies.Lookup("reflexion_code")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, task, rng, strategy string
		iters                     int
	}{
		{"reflexion-mbpp/simple", "mbpp", "0:397", "simple", 5},
		{"reflexion-mbpp/reflexion", "mbpp", "0:397", "reflexion", 5},
		{"reflexion-humaneval/simple", "humaneval", "0:164", "simple", 5},
		{"reflexion-humaneval/reflexion", "humaneval", "0:164", "reflexion", 10},
	} {
		cfg, err := ApplyPreset(DefaultConfig(), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Task != c.task || cfg.Range != c.rng || cfg.Strategy != "reflexion_code" {
			t.Errorf("%s: task %s range %s strategy %s", c.name, cfg.Task, cfg.Range, cfg.Strategy)
		}
		// The logged verdicts are the reference executor's: the paper's rule.
		if cfg.Rule != "reference" {
			t.Errorf("%s: rule %q, want reference", c.name, cfg.Rule)
		}
		if task, err := OpenTask(cfg.Task, cfg.TaskSpec, cfg.Rule); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if r, ok := task.(interface{ ScoringRule() string }); !ok || r.ScoringRule() == "" {
			t.Errorf("%s: the task names no rule", c.name)
		}
		v, err := strategies.Resolve(spec.Params, cfg.Params)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if v.String("strategy") != c.strategy || v.String("version") != strategies.CodeVersionLogged || v.Int("max_iters") != c.iters ||
			v.Float("temperature") != 0 || v.Int("max_tests") != 0 {
			t.Errorf("%s: %v", c.name, v)
		}
		// The reference's internal tests share its executor's namespace.
		if want := map[string]string{"simple": "isolated", "reflexion": "shared"}[c.strategy]; v.String("namespace") != want {
			t.Errorf("%s: namespace %s, want %s", c.name, v.String("namespace"), want)
		}
		// --set wins over the preset.
		cfg, err = ApplyPreset(Config{Params: map[string]any{"version": "current"}}, c.name)
		if err != nil || cfg.Params["version"] != "current" {
			t.Errorf("%s with --set version=current: %v %v", c.name, cfg.Params, err)
		}
	}
}
