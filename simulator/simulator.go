// Package simulator is the home of the simulated model's task knowledge:
// one responder package per task (simulator/game24, simulator/hotpotqa,
// simulator/qa for file tasks and GSM8K, simulator/crosswords,
// simulator/creative, simulator/code for HumanEval, MBPP and code file tasks,
// simulator/tau for τ-bench's agent and user), over the core in llm/sim (seeds,
// noise parameters, the Responder interface) and the shared prompt reader
// simulator/reading. A task package is the real task only and never
// imports this tree; a responder may import its task for what a model
// plausibly knows as skill (Game of 24's arithmetic and solver), never for
// its data: responders read only the prompt.
//
// Support for a strategy is a separate, optional file of a task's
// responder (simulator/hotpotqa/lats.go); without it the simulator answers
// that strategy's prompts with sim.Fallback, and the strategy still runs
// against any real endpoint.
package simulator

import (
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/code"
	"github.com/reasonbench/reasonbench/simulator/creative"
	"github.com/reasonbench/reasonbench/simulator/crosswords"
	"github.com/reasonbench/reasonbench/simulator/debate"
	"github.com/reasonbench/reasonbench/simulator/game24"
	"github.com/reasonbench/reasonbench/simulator/hotpotqa"
	"github.com/reasonbench/reasonbench/simulator/math500"
	"github.com/reasonbench/reasonbench/simulator/qa"
	"github.com/reasonbench/reasonbench/simulator/tau"
	"github.com/reasonbench/reasonbench/simulator/tooluser"
	"github.com/reasonbench/reasonbench/simulator/verifier"
)

// New builds the simulated model answering every bundled task and file
// tasks, one line a task. The qa responder (file tasks, GSM8K) comes first
// and answers only the qa templates. No responder looks a question up in
// bundled data: they answer from what the prompt shows (simulator/reading),
// so a question answers alike whichever task asks it, in process or
// through serve-sim.
func New(p sim.Params) (*sim.Model, error) {
	tasks := []sim.Responder{
		verifier.Responder{}, // first: it answers only reward requests and its own judge prompt
		tau.Responder{},      // τ-bench's agent, user and supervisor: a domain policy or a user prompt as the system turn
		qa.ArithResponder{},  // before qa: its expressions are questions qa's reader cannot work out
		tooluser.Responder{}, // the agent templates of runs whose tools are MCP servers'
		qa.Responder{},
		qa.BoxedResponder{}, // the debate reference's GSM8K questions
		math500.Responder{},
		game24.NewResponder(),
		hotpotqa.Responder{},
		crosswords.Responder{},
		creative.Responder{},
		code.ReflexionResponder{}, // before the coder: its prompts are the more specific
		code.SelfRefineResponder{},
		code.Responder{},
	}
	// The debater answers the later rounds of a debate, asking the task
	// responders when it works a problem out again.
	return sim.New(p, append([]sim.Responder{debate.New(tasks...)}, tasks...)...)
}
