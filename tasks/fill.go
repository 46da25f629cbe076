package tasks

import "github.com/reasonbench/reasonbench/prompts"

// FillSpace is implemented by tasks solved by filling in parts one action
// at a time, where the model proposes actions with a stated confidence and
// checks the parts of a state one by one (Mini Crosswords): what the ToT
// reference's depth-first search (strategy tot_dfs) needs. A state is its
// actions, one a line; the root is "".
type FillSpace interface {
	// MaxActions bounds a state's actions: a state with this many or more
	// is never visited.
	MaxActions() int
	// ProposePrompt asks for candidate actions and their confidence.
	ProposePrompt(lib *prompts.Library, inst Instance, state string) (string, error)
	// Proposals reads one propose answer: the actions it names, each with
	// the weight of its stated confidence, in the order written.
	Proposals(output string) []Proposal
	// Apply adds action to state. conflict reports that it overwrote a
	// letter (a part) an earlier action wrote.
	Apply(inst Instance, state, action string) (child string, conflict bool)
	// Checks are the prompts judging the parts of state worth judging, in
	// order; parts are named ("h2") for call identities.
	Checks(lib *prompts.Library, inst Instance, state string) ([]Check, error)
	// Verdict reads a check answer: "sure", "maybe", "impossible", or ""
	// when it gives none.
	Verdict(output string) string
}

// Proposal is one proposed action and the weight of its confidence.
type Proposal struct {
	Action string
	Weight float64
}

// Check is one part of a state to judge.
type Check struct {
	Part   string
	Prompt string
}
