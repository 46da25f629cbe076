package strategies

import (
	"fmt"
	"strings"
)

// Spec declares a strategy: its name, parameters and constructor.
type Spec struct {
	Name   string
	Doc    string
	Params []Param
	New    func(Values) (Strategy, error)
}

// Registry lists every strategy. Adding one means writing its file and
// adding a line here.
func Registry() []Spec {
	return []Spec{
		{Name: "io", Doc: "input-output prompting: k independent few-shot answers", Params: samplingParams, New: newSampling("io")},
		{Name: "cot", Doc: "chain-of-thought: k independent few-shot step-by-step answers", Params: samplingParams, New: newSampling("cot")},
		{Name: "cotsc", Doc: "chain-of-thought with self-consistency: k chains, majority vote", Params: cotscParams, New: newCoTSC},
		{Name: "tot", Doc: "tree of thoughts: propose/sample steps, value/vote evaluation, BFS beam or DFS", Params: totParams, New: newToT},
		{Name: "react", Doc: "ReAct: thought, action, observation over the task's tools (protocol text|json|tools)", Params: reactParams, New: newReAct},
		{Name: "reflexion", Doc: "Reflexion: trials with reflections on failures kept in long-term memory (actor cot|react; evaluator oracle peeks at the gold answer, as the paper, or self)", Params: reflexionParams, New: newReflexion},
		{Name: "reflexion_ref", Doc: "the Reflexion reference agents for HotpotQA (agent cot|react, the reference scratchpad protocol: one growing scratchpad, Thought/Action calls with stop \"\\n\", Finish[answer], its reflection headers and truncation); differs from reflexion, which uses the harness prompts and protocol", Params: reflexionRefParams, New: newReflexionRef},
		{Name: "tot_dfs", Doc: "tree of thoughts' depth-first search as the reference's Mini Crosswords notebook: proposals sampled n times and ranked by summed confidence, per-part sure/maybe/impossible checks, pruning, backtracking, at most 3 children a state and 100 states; backtrack=false is its greedy ablation", Params: totDFSParams, New: newToTDFS},
		{Name: "mcts", Doc: "Monte Carlo tree search over the task's thought space (RAP-style): UCT selection, model value/vote as reward, rollouts, mean|max backup", Params: mctsParams, New: newMCTS},
		{Name: "lats", Doc: "Language Agent Tree Search: MCTS over ReAct trajectories, model value (self-consistency) scores states, Finish judged by the evaluator (oracle peeks at gold, as the paper, or self), reflections on failures reach later expansions", Params: latsParams, New: newLATS},
		{Name: "selfrefine", Doc: "Self-Refine: answer, self-feedback, refine with the history, until the feedback says no change is needed", Params: selfRefineParams, New: newSelfRefine},
	}
}

// Lookup finds a strategy by name.
func Lookup(name string) (Spec, error) {
	var names []string
	for _, s := range Registry() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(names, ", "))
}
