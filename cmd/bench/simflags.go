package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// simFlags registers the simulator's noise parameters.
func simFlags(fs *flag.FlagSet) *sim.Params {
	p := sim.DefaultParams()
	fs.Float64Var(&p.Skill, "sim-skill", p.Skill, "simulated model: probability a reasoning step is chosen well")
	fs.Float64Var(&p.Slip, "sim-slip", p.Slip, "simulated model: probability a step's content is wrong anyway")
	fs.Float64Var(&p.Misjudge, "sim-misjudge", p.Misjudge, "simulated model: probability an evaluation is wrong")
	fs.Float64Var(&p.Boost, "sim-boost", p.Boost, "simulated model: skill gained from a reflection that names the failure")
	fs.Float64Var(&p.Focus, "sim-focus", p.Focus, "simulated model: how strongly samples repeat the same choices (0: uniform)")
	fs.Float64Var(&p.VerifyFlip, "sim-verify-flip", p.VerifyFlip, "simulated verifier: probability it misreads a step it re-checks (a right step judged wrong or a wrong one right)")
	fs.Float64Var(&p.VerifySpread, "sim-verify-spread", p.VerifySpread, "simulated verifier: half-width of the uniform scatter of its scores around 0.9 (step judged right) or 0.1 (judged wrong)")
	fs.Float64Var(&p.Conformity, "sim-conformity", p.Conformity, "simulated debater: probability it takes the answer most agents hold instead of working the problem out again")
	return &p
}

// ignoredSimFlags refuses the --sim-* flags given to a run whose models are
// all at endpoints: with a base URL (--base-url or $OPENAI_BASE_URL) every
// role's model is at one (the run's, a named one, never the simulator in
// process), so no simulator here reads them; bench serve-sim takes its
// own. Refused rather than warned: the run would be stored, and paid for
// on a real model, under parameters it never used, and a warning scrolls
// away under the progress line; nothing has started yet.
func ignoredSimFlags(fs *flag.FlagSet, baseURL string) error {
	if baseURL == "" {
		return nil
	}
	var given []string
	baseFlag := false
	fs.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "sim-") {
			given = append(given, "--"+f.Name)
		}
		baseFlag = baseFlag || f.Name == "base-url"
	})
	if len(given) == 0 {
		return nil
	}
	from := "--base-url"
	if !baseFlag {
		from = "$OPENAI_BASE_URL"
	}
	it := "it"
	if len(given) > 1 {
		it = "them"
	}
	return fmt.Errorf("%s: set only for the simulator in process, and with %s every model of the run is at an endpoint: drop %s (a bench serve-sim endpoint takes its own, e.g. bench serve-sim %s X)",
		strings.Join(given, ", "), from, it, given[0])
}
