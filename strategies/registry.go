package strategies

import (
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/suggest"
)

// Spec declares a strategy: its name, parameters and constructor.
type Spec struct {
	Name   string
	Doc    string
	Params []param.Param
	New    func(param.Values) (Strategy, error)
	// Shares says which of its calls are one draw for several uses (the
	// sharing the method declares); every other call is its own draw.
	Shares string
	// Templates lists the templates a configuration renders, by the names
	// render takes ("cot", "propose"; tasks.TemplateName finds them under
	// the task's folders): the engine refuses a run whose task lacks one
	// before anything is stored. nil declares none.
	Templates func(param.Values) []string
	// Probe is a small configuration that exercises the strategy's main
	// mode; the identity, determinism and completions tests run it.
	Probe Probe
}

// Registry lists every strategy, one field of its Spec a line. Adding one
// means writing its file and adding an entry here, with its Templates and
// Probe, its templates under prompts/, and its line in reading's table of
// readers (its detail's readers; the zero Reading for none).
func Registry() []Spec {
	return []Spec{
		{
			Name:      "io",
			Doc:       "input-output prompting: k independent few-shot answers",
			Params:    samplingParams,
			New:       newSampling("io"),
			Shares:    "nothing: the k samples are one request with n=k (choice i drawn with seed+i)",
			Templates: fixedTemplates("io"),
			Probe:     Probe{Task: "game24", Range: "900:906", Params: map[string]any{"k": 3, "temperature": 0.7}},
		},
		{
			Name:      "cot",
			Doc:       "chain-of-thought: k independent few-shot step-by-step answers",
			Params:    samplingParams,
			New:       newSampling("cot"),
			Shares:    "nothing: the k samples are one request with n=k (choice i drawn with seed+i)",
			Templates: fixedTemplates("cot"),
			Probe:     Probe{Task: "game24", Range: "900:906", Params: map[string]any{"k": 3, "temperature": 0.7}},
		},
		{
			Name:      "cotsc",
			Doc:       "chain-of-thought with self-consistency: k chains, majority vote",
			Params:    cotscParams,
			New:       newCoTSC,
			Shares:    "nothing: the k chains are one request with n=k (choice i drawn with seed+i)",
			Templates: fixedTemplates("cot"),
			Probe:     Probe{Task: "game24", Range: "900:906", Params: map[string]any{"k": 5, "temperature": 0.7}},
		},
		{
			Name:   "tot",
			Doc:    "tree of thoughts: propose/sample steps, value/vote evaluation, BFS beam or DFS",
			Params: totParams,
			New:    newToT,
			Shares: "value_cache: item (one value draw per prompt within an instance), run (one draw per prompt " +
				"across the run, whoever asks first) or off; duplicates=share gives an identical candidate of a " +
				"step its twin's value. protocol=reference with value_cache=run also shares the value, as the " +
				"reference's cache does: a prompt keeps the value its first asker read (0 if four lines without " +
				"an answer asked first), first in range order, so puzzles run one at a time (each puzzle's calls " +
				"still concurrent, up to --concurrency) and the run cannot be sharded",
			Templates: thoughtTemplates,
			Probe:     Probe{Task: "game24", Range: "900:906", Params: map[string]any{"b": 2, "temperature": 0.7}},
		},
		{
			Name:      "react",
			Doc:       "ReAct: thought, action, observation over the task's tools (protocol text|json|tools)",
			Params:    reactParams,
			New:       newReAct,
			Shares:    "nothing: every turn of every trajectory is its own draw",
			Templates: reactTemplates,
			Probe:     Probe{Task: "hotpotqa", Range: "0:6", Params: map[string]any{"protocol": "text", "temperature": 0.7}},
		},
		{
			Name: "reflexion",
			Doc: "Reflexion: trials with reflections on failures kept in long-term memory (actor cot|react; " +
				"evaluator oracle peeks at the gold answer, as the paper, or self)",
			Params: reflexionParams,
			New:    newReflexion,
			Shares: "nothing: every trial's actor, evaluator and reflection calls are new draws (reflection=none " +
				"retries are fresh samples)",
			Templates: reflexionTemplates,
			Probe:     Probe{Task: "hotpotqa", Range: "0:6", Params: map[string]any{"reflection": "reflexion", "evaluator": "self", "trials": 3, "temperature": 0.7}},
		},
		{
			Name: "reflexion_ref",
			Doc: "the Reflexion reference agents for HotpotQA (agent cot|react, the reference scratchpad " +
				"protocol: one growing scratchpad, Thought/Action calls with stop \"\\n\", Finish[answer], its " +
				"reflection headers and truncation); differs from reflexion, which uses the harness prompts and " +
				"protocol",
			Params:    reflexionRefParams,
			New:       newReflexionRef,
			Shares:    "nothing: every trial's calls are new draws",
			Templates: reflexionRefTemplates,
			Probe:     Probe{Task: "hotpotqa", Range: "0:6", Params: map[string]any{"agent": "cot", "trials": 3, "temperature": 0.7}},
		},
		{
			Name: "reflexion_code",
			Doc: "the Reflexion reference's programming protocol (noahshinn/reflexion): model-written internal " +
				"tests (assert lines that parse, at most 5), implementation, sandboxed test feedback, " +
				"self-reflection, improved implementation; hidden tests once on the first implementation passing " +
				"every internal test or the last (pass@1); version b448a9b (the logged GPT-4 runs) or current, " +
				"strategy simple|reflexion",
			Params:    reflexionCodeParams,
			New:       newReflexionCode,
			Shares:    "nothing: the tests, every implementation and every reflection are their own draws",
			Templates: reflexionCodeTemplates,
			Probe:     Probe{Task: "mbpp", Range: "0:3", Params: map[string]any{"strategy": "reflexion", "version": "b448a9b", "max_iters": 5, "temperature": 0.7}},
		},
		{
			Name: "tot_dfs",
			Doc: "tree of thoughts' depth-first search as the reference's Mini Crosswords notebook: proposals " +
				"sampled n times and ranked by summed confidence, per-part sure/maybe/impossible checks, " +
				"pruning, backtracking, at most 3 children a state and 100 states; backtrack=false is its greedy " +
				"ablation",
			Params: totDFSParams,
			New:    newToTDFS,
			Shares: "a board's proposals are one draw (n samples) within a puzzle, as the notebook's cache (which " +
				"spans its run); check_cache=item: a clue check is one draw per prompt within a puzzle, off: " +
				"asked again for every state",
			Templates: fixedTemplates("propose", "value"),
			Probe:     Probe{Task: "crosswords", Range: "0:2", Params: map[string]any{"max_states": 20, "temperature": 0.7}},
		},
		{
			Name: "mcts",
			Doc: "Monte Carlo tree search over the task's thought space (RAP-style): UCT selection, model " +
				"value/vote as reward, rollouts, mean|max backup",
			Params:    mctsParams,
			New:       newMCTS,
			Shares:    "value_cache: item (a state valued once per instance, kept in the checkpoint) or off",
			Templates: thoughtTemplates,
			Probe:     Probe{Task: "game24", Range: "900:904", Params: map[string]any{"iterations": 6, "temperature": 0.7}},
		},
		{
			Name: "lats",
			Doc: "Language Agent Tree Search: MCTS over ReAct trajectories, model value (self-consistency) scores " +
				"states, Finish judged by the evaluator (oracle peeks at gold, as the paper, or self), " +
				"reflections on failures reach later expansions",
			Params: latsParams,
			New:    newLATS,
			Shares: "nothing: each child is valued once when created; the reference also caches values by prompt " +
				"across questions, which repeats only for identical trajectories and reflections",
			Templates: fixedTemplates("lats_react", "lats_value", "reflect", "self_eval"),
			Probe:     Probe{Task: "hotpotqa", Range: "0:3", Params: map[string]any{"iterations": 4, "evaluator": "self", "temperature": 0.7}},
		},
		{
			Name: "pal",
			Doc: "program-aided reasoning (PAL): the model writes solution() in Python, run in the sandbox; its " +
				"return value is the answer; k > 1 votes on the executed answers (PAL-SC)",
			Params: palParams,
			New:    newPAL,
			Shares: "nothing: the k programs are one request with n=k (choice i drawn with seed+i); program i runs " +
				"at site s<i>/run",
			Templates: fixedTemplates("pal"),
			Probe:     Probe{Task: "gsm8k", Range: "0:5", Params: map[string]any{"k": 3, "temperature": 0.7}},
		},
		{
			Name: "bon",
			Doc: "best-of-N by a verifier (search-and-learn's best_of_n): N solutions, each scored step by step; " +
				"select best|weighted|majority",
			Params: bonParams,
			New:    newBoN,
			Shares: "nothing: the N solutions are one request with n=N (choice i drawn with seed+i); solution i is " +
				"verified at s<i>/verify",
			Templates: fixedTemplates(stepsTemplate),
			Probe:     Probe{Task: "gsm8k", Range: "0:5", Params: map[string]any{"n": 4, "temperature": 0.7}},
		},
		{
			Name: "beam",
			Doc: "step-level beam search guided by a process reward model (search-and-learn's beam_search): n " +
				"beams, n/beam_width survive each step, stop on a final answer",
			Params: beamParams,
			New:    newBeam,
			Shares: "nothing: beam position j's step at iteration i is its own draw (s<i>/b<j>), verified at " +
				"s<i>/b<j>/verify",
			Templates: fixedTemplates(stepsTemplate),
			Probe:     Probe{Task: "game24", Range: "900:904", Params: map[string]any{"n": 4, "beam_width": 2, "num_iterations": 6, "temperature": 0.7}},
		},
		{
			Name: "dvts",
			Doc: "diverse verifier tree search (search-and-learn's dvts): n/beam_width independent subtrees, each " +
				"greedy by the verifier with lookahead",
			Params: dvtsParams,
			New:    newDVTS,
			Shares: "nothing: subtree k's beam_width expansions at step i are one request (t<k>/s<i>, choice j at " +
				"seed+j), lookahead t<k>/s<i>/x<j>/look<l>, verified at t<k>/s<i>/x<j>/verify",
			Templates: fixedTemplates(stepsTemplate),
			Probe:     Probe{Task: "gsm8k", Range: "0:4", Params: map[string]any{"n": 4, "beam_width": 2, "num_iterations": 8, "temperature": 0.7}},
		},
		{
			Name: "program",
			Doc: "a strategy written as a program in any language (--set cmd='python3 my_method.py'): per item it " +
				"reads the item as one JSON line on stdin, calls the model at $OPENAI_BASE_URL (a recording " +
				"endpoint over the item's sampler stack) and prints its answer; a crash, timeout or no answer is " +
				"the item's recorded failure",
			Params: programParams,
			New:    newProgram,
			Shares: "nothing: a call is named by its X-Bench-Call header (a repeat is name#2, …) or by its " +
				"content, p/<sha256 of the request, 12 hex>#k for the k-th identical request of the item; each " +
				"is its own draw",
			Templates: fixedTemplates(),
			Probe:     Probe{Task: "game24", Range: "900:904", Params: map[string]any{"cmd": programProbe, "temperature": 0.7}},
		},
		{
			Name: "debate",
			Doc: "multi-agent debate (Du et al. 2023): agents answer, then each round every agent reads the " +
				"others' previous answers and answers again; the majority of the last round's answers under the " +
				"task's vote key",
			Params:    debateParams,
			New:       newDebate,
			Shares:    "nothing: agent a's answer in round r is its own draw (r<r>/a<a>)",
			Templates: debateTemplates,
			Probe:     Probe{Task: "game24", Range: "900:904", Params: map[string]any{"agents": 3, "rounds": 2, "temperature": 0.7}},
		},
		{
			Name: "selfrefine",
			Doc: "Self-Refine: answer, self-feedback, refine with the history, until the feedback says no change " +
				"is needed",
			Params:    selfRefineParams,
			New:       newSelfRefine,
			Shares:    "nothing: every iteration's answer and feedback are new draws",
			Templates: selfRefineTemplates,
			Probe:     Probe{Task: "game24", Range: "900:906", Params: map[string]any{"iterations": 3, "temperature": 0.7}},
		},
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
	if near := suggest.Nearest(name, names); near != "" {
		return Spec{}, fmt.Errorf("unknown strategy %q: did you mean %s? (known: %s)", name, near, strings.Join(names, ", "))
	}
	return Spec{}, fmt.Errorf("unknown strategy %q (known: %s)", name, strings.Join(names, ", "))
}
