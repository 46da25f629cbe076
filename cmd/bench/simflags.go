package main

import (
	"flag"

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
