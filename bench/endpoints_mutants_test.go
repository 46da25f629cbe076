package bench

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// TestMoveEndpointsRefusesUnknownName: a resume re-points the run's own
// named endpoints and refuses one the run never had, naming it.
func TestMoveEndpointsRefusesUnknownName(t *testing.T) {
	run := Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1",
		NamedEndpoints: []Endpoint{{Name: "a", URL: "http://127.0.0.1:2/v1"}, {Name: "b", URL: "http://127.0.0.1:3/v1"}}}
	c := run
	c.NamedEndpoints = append([]Endpoint(nil), run.NamedEndpoints...)
	if err := c.moveEndpoints(ResumeOptions{Endpoints: []Endpoint{{Name: "b", URL: "http://127.0.0.1:4/v1", KeyEnv: "B_KEY"}}}); err != nil {
		t.Fatal(err)
	}
	if c.NamedEndpoints[0] != run.NamedEndpoints[0] || c.NamedEndpoints[1] != (Endpoint{Name: "b", URL: "http://127.0.0.1:4/v1", KeyEnv: "B_KEY"}) {
		t.Errorf("moved endpoints %+v", c.NamedEndpoints)
	}
	c = run
	c.NamedEndpoints = append([]Endpoint(nil), run.NamedEndpoints...)
	err := c.moveEndpoints(ResumeOptions{Endpoints: []Endpoint{{Name: "a", URL: "http://127.0.0.1:5/v1"}, {Name: "x", URL: "http://127.0.0.1:6/v1"}}})
	if err == nil || !strings.Contains(err.Error(), "--endpoint x") || !strings.Contains(err.Error(), "no endpoint of that name") {
		t.Errorf("an endpoint the run never had: %v (endpoints now %+v)", err, c.NamedEndpoints)
	}
}

// TestSimCardFingerprints: the fingerprint names the parameters: each
// parameter changed gives another one, the same parameters the same.
func TestSimCardFingerprints(t *testing.T) {
	base := DefaultConfig().Sim
	_, fp := SimCard(base, true)
	if _, again := SimCard(base, false); again != fp || !strings.HasPrefix(fp, "fp_reasonbench_sim_") || len(fp) != len("fp_reasonbench_sim_")+10 {
		t.Fatalf("fingerprints %q, %q", fp, again)
	}
	seen := map[string]string{fp: "the defaults"}
	for _, c := range []struct {
		name string
		edit func(*sim.Params)
	}{
		{"skill", func(p *sim.Params) { p.Skill += 0.01 }},
		{"slip", func(p *sim.Params) { p.Slip += 0.01 }},
		{"misjudge", func(p *sim.Params) { p.Misjudge += 0.01 }},
		{"boost", func(p *sim.Params) { p.Boost += 0.01 }},
		{"focus", func(p *sim.Params) { p.Focus += 0.5 }},
		{"verify_flip", func(p *sim.Params) { p.VerifyFlip += 0.01 }},
	} {
		p := base
		c.edit(&p)
		_, f := SimCard(p, true)
		if other, ok := seen[f]; ok {
			t.Errorf("%s changed: fingerprint %q, as for %s", c.name, f, other)
		}
		seen[f] = c.name
	}
}
