package strategies

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/strategies/param"
)

func TestRegistryDeclarationsAreValid(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range Registry() {
		if seen[s.Name] {
			t.Errorf("strategy %s registered twice", s.Name)
		}
		seen[s.Name] = true
		v, err := param.Resolve(s.Params, nil)
		if err != nil {
			t.Errorf("%s: defaults do not validate: %v", s.Name, err)
			continue
		}
		if _, err := s.New(v); err != nil {
			t.Errorf("%s: cannot build with defaults: %v", s.Name, err)
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "known: io, cot, cotsc, tot") {
		t.Errorf("Lookup(nope) = %v", err)
	}
}

// Parameters added to react and selfrefine after runs were recorded are
// left out of the Values at their defaults, so the configurations that
// existed keep the Values the engine hashes into run keys and draws.
func TestLateParamsKeepEarlierValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		strategy string
		set      map[string]any
		want     []string // the keys of the Values
	}{
		{"react", nil, []string{"max_steps", "max_tokens", "protocol", "temperature"}},
		{"react", map[string]any{"tools": "task", "timeout": 5.0}, []string{"max_steps", "max_tokens", "protocol", "temperature"}},
		{"react", map[string]any{"tools": "python"}, []string{"max_steps", "max_tokens", "protocol", "temperature", "tools"}},
		{"selfrefine", map[string]any{"protocol": "answer", "feedback_temperature": 0.7}, []string{"context", "iterations", "max_tokens", "score_threshold", "stop", "stop_phrase", "temperature"}},
		{"selfrefine", map[string]any{"protocol": "pal", "timeout": 2}, []string{"context", "iterations", "max_tokens", "protocol", "score_threshold", "stop", "stop_phrase", "temperature", "timeout"}},
	} {
		spec, err := Lookup(c.strategy)
		if err != nil {
			t.Fatal(err)
		}
		v, err := param.Resolve(spec.Params, c.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(maps.Keys(v)); !slices.Equal(got, c.want) {
			t.Errorf("%s %v: values %v, want %v", c.strategy, c.set, got, c.want)
		}
		if _, err := spec.New(v); err != nil {
			t.Errorf("%s %v: %v", c.strategy, c.set, err)
		}
	}
	s, _ := newReAct(param.Values{"protocol": "text", "max_steps": 3, "temperature": 0.0, "max_tokens": 0})
	if r := s.(*react); r.tools != ToolsTask || r.limits.Wall != 5*time.Second {
		t.Errorf("react without its late parameters: tools %q, limits %+v", r.tools, r.limits)
	}
}
