package tasks

import "github.com/reasonbench/reasonbench/prompts"

// ThoughtSpace is implemented by tasks that Tree of Thoughts can search. As
// in the ToT reference, a state is the text of the thoughts so far, one step
// per line; the root is "".
type ThoughtSpace interface {
	// Steps is the search depth that reaches a final answer.
	Steps() int
	// ProposePrompt asks for a list of candidate next steps from state.
	ProposePrompt(lib *prompts.Library, inst Instance, state string) (string, error)
	// Proposals turns a propose answer into child states.
	Proposals(inst Instance, state, output string) []string
	// SamplePrompt asks for one more step by continuing a chain of thought;
	// the answer is cut at stop and appended to state as one line.
	SamplePrompt(lib *prompts.Library, inst Instance, state string) (prompt string, stop []string, err error)
	// ValuePrompt asks for a judgement of state. ok=false means the state is
	// worth 0 without asking (e.g. a finished chain with no answer).
	ValuePrompt(lib *prompts.Library, inst Instance, state string) (prompt string, ok bool, err error)
	// Judgement extracts the judgement word ("sure", "likely", ...) from a
	// value answer, lower case.
	Judgement(output string) string
	// VotePrompt asks which of the states is most promising.
	VotePrompt(lib *prompts.Library, inst Instance, states []string) (string, error)
	// ParseVote reads the chosen state (0-based) from a vote answer.
	ParseVote(output string, n int) (int, bool)
	// Final reports whether state carries a final answer.
	Final(state string) bool
}

// ReferenceThoughts is implemented by thought spaces that wrap prompts and
// read values exactly as the ToT reference implementation does
// (princeton-nlp/tree-of-thought-llm), for tot's protocol=reference. y is the
// reference's partial output: the steps so far, each ending in "\n".
type ReferenceThoughts interface {
	// ReferenceProposePrompt is the reference's propose prompt for y.
	ReferenceProposePrompt(lib *prompts.Library, inst Instance, y string) (string, error)
	// ReferenceValuePrompt is the reference's value prompt for y.
	ReferenceValuePrompt(lib *prompts.Library, inst Instance, y string) (string, error)
	// ReferenceValue turns the value answers for y into its value, with the
	// reference's arithmetic (so ties and float sums are bit-identical).
	ReferenceValue(inst Instance, y string, outputs []string) float64
}

// ThoughtModes is implemented by thought spaces that offer only some of
// ToT's generation and evaluation modes (HotpotQA's samples and votes); the
// strategies reject the others before a run starts. A ThoughtSpace without
// it offers all of them.
type ThoughtModes interface {
	// ThoughtModes lists the generate modes (propose, sample) and evaluate
	// modes (value, vote) the space supports.
	ThoughtModes() (generate, evaluate []string)
}

// SampleJoiner is implemented by thought spaces whose samples extend a
// state whole (a plan, then a passage) instead of by their first line.
type SampleJoiner interface {
	JoinSample(state, sample string) string
}
