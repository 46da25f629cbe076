package strategies

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/evaluators"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/search"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// tot is Tree of Thoughts (Yao et al. 2023): a search over partial
// solutions where the model proposes steps and judges states.
type tot struct {
	generate, evaluate, selection, search string
	b, nGenerate, nEvaluate, steps        int
	temperature                           *float64
	scores                                evaluators.Scores
	shareDuplicates                       bool
	cacheScope                            string
	threshold, solvedValue                float64
	maxSteps                              int
	protocol                              string
	// runValues is the reference's run-wide value cache (protocol=reference
	// with value_cache=run): prompt → the value its first asker read, in
	// the run's order of puzzles (see Ordered); nil otherwise.
	runValues *evaluators.Cache
}

var totParams = []param.Param{
	{Name: "protocol", Kind: param.String, Default: "harness", Allowed: []string{"harness", "reference"}, Doc: "reference: the ToT reference code's BFS decision for decision (propose+value+bfs only; score_* and duplicates ignored). harness differs from it in exactly: empty proposal lines and 'Possible next steps:' dropped; a newline after 'Steps:' in the final-step prompt; the value_last answer keeps its case and only a leading 'Answer:' is cut; judgements are the trimmed lower-cased last line and summed answer by answer (last bits differ: 40.001000000000005 vs 40.001, which reorders ties); a state with an Answer line is not expanded further; no max_tokens"},
	{Name: "generate", Kind: param.String, Default: "propose", Allowed: []string{"propose", "sample"}, Doc: "propose: one call lists next steps; sample: n_generate chain-of-thought continuations"},
	{Name: "evaluate", Kind: param.String, Default: "value", Allowed: []string{"value", "vote"}, Doc: "value: judge each candidate n_evaluate times; vote: n_evaluate votes over all candidates"},
	{Name: "select", Kind: param.String, Default: "greedy", Allowed: []string{"greedy", "sample"}, Doc: "keep the b best, or draw b in proportion to value (seeded)"},
	{Name: "search", Kind: param.String, Default: "bfs", Allowed: []string{"bfs", "dfs"}, Doc: "breadth-first beam search, or depth-first with pruning and backtracking"},
	{Name: "b", Kind: param.Int, Default: 5, Min: param.Bound(1), Max: param.Bound(1000), Show: true, Doc: "beam width (n_select)"},
	{Name: "n_generate", Kind: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(1000), Doc: "samples per state when generating"},
	{Name: "n_evaluate", Kind: param.Int, Default: 3, Min: param.Bound(1), Max: param.Bound(1000), Doc: "samples per candidate (value) or votes per step (vote)"},
	{Name: "steps", Kind: param.Int, Default: 0, Min: param.Bound(0), Max: param.Bound(100), Doc: "search depth (0: the task's, 4 for game24)"},
	temperatureParam("temperature", 0.7, "sampling temperature of every call; the diversity of proposals, samples and evaluations depends on it"),
	{Name: "score_sure", Kind: param.Float, Default: 20.0, Doc: "value of the judgement 'sure'"},
	{Name: "score_likely", Kind: param.Float, Default: 1.0, Doc: "value of the judgement 'likely'"},
	{Name: "score_impossible", Kind: param.Float, Default: 0.001, Doc: "value of the judgement 'impossible'"},
	{Name: "duplicates", Kind: param.String, Default: "zero", Allowed: []string{"zero", "share"}, Doc: "identical candidates in a step: later ones get 0 (reference) or share the value"},
	{Name: "value_cache", Kind: param.String, Default: "item", Allowed: []string{"item", "run", "off"}, Doc: "declared sharing of value draws: one draw per prompt within an instance, one per prompt across the run (the reference's; with protocol=reference a prompt keeps the value its first asker read, puzzles in range order, so items run one at a time and the run cannot be sharded), or none (every candidate its own draw)"},
	{Name: "threshold", Kind: param.Float, Default: 1.0, Doc: "dfs: children valued below it are pruned"},
	{Name: "max_steps", Kind: param.Int, Default: 100, Min: param.Bound(1), Doc: "dfs: budget of expansions"},
	{Name: "solved_value", Kind: param.Float, Default: 20.0, Doc: "dfs: a final state valued at least this is judged solved and stops the search"},
}

// thoughtTemplates are the templates of tot's and mcts's modes that have
// one name on every task. A thought space renders its own prompts and names
// the sampling and voting ones per task (game24's cot and vote, HotpotQA's
// tot_sample and tot_vote), so those are not declared here; the modes a
// task offers are checked by CheckTask (tasks.ThoughtModes).
func thoughtTemplates(v param.Values) []string {
	var out []string
	if v.String("generate") == "propose" {
		out = append(out, "propose")
	}
	if v.String("evaluate") == "value" {
		out = append(out, "value")
	}
	return out
}

func newToT(v param.Values) (Strategy, error) {
	t := &tot{
		generate: v.String("generate"), evaluate: v.String("evaluate"), selection: v.String("select"), search: v.String("search"),
		b: v.Int("b"), nGenerate: v.Int("n_generate"), nEvaluate: v.Int("n_evaluate"), steps: v.Int("steps"),
		temperature:     v.Temperature("temperature"),
		scores:          evaluators.Scores{"sure": v.Float("score_sure"), "likely": v.Float("score_likely"), "impossible": v.Float("score_impossible")},
		shareDuplicates: v.String("duplicates") == "share", cacheScope: v.String("value_cache"),
		threshold: v.Float("threshold"), maxSteps: v.Int("max_steps"), solvedValue: v.Float("solved_value"),
		protocol: v.String("protocol"),
	}
	if t.InOrder() != "" {
		t.runValues = evaluators.NewCache()
	}
	return t, nil
}

// CheckTask requires a thought space.
func (t *tot) CheckTask(task tasks.Task) error {
	if _, ok := task.(tasks.ThoughtSpace); !ok {
		return fmt.Errorf("task %s has no thought space for tree search", task.Name())
	}
	if m, ok := task.(tasks.ThoughtModes); ok {
		gen, eval := m.ThoughtModes()
		if !slices.Contains(gen, t.generate) || !slices.Contains(eval, t.evaluate) {
			return fmt.Errorf("task %s's thought space offers generate=%s and evaluate=%s, not generate=%s evaluate=%s: set them with --set",
				task.Name(), strings.Join(gen, "|"), strings.Join(eval, "|"), t.generate, t.evaluate)
		}
	}
	if t.protocol == "reference" {
		return t.checkReference(task)
	}
	return nil
}

// StepStats is what one depth of the search cost.
type StepStats struct {
	Depth      int `json:"depth"`
	Candidates int `json:"candidates"`
	Calls      int `json:"calls"`
	CacheHits  int `json:"cache_hits"`
	Duplicates int `json:"duplicates"`
}

type totDetail struct {
	Best       int         `json:"best"`  // node id the search ranks best
	Final      []int       `json:"final"` // final frontier (bfs) or terminals visited (dfs)
	FinalOK    []bool      `json:"final_correct"`
	Expansions int         `json:"expansions"`
	Found      bool        `json:"found,omitempty"`
	Steps      []StepStats `json:"steps"`
	// Reference is the reference's own log of each step (protocol=reference).
	Reference []ReferenceStep `json:"reference_steps,omitempty"`
}

func (t *tot) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if t.protocol == "reference" {
		return t.solveReference(ctx, env, inst)
	}
	space := env.Task.(tasks.ThoughtSpace)
	steps := t.steps
	if steps == 0 {
		steps = space.Steps()
	}
	cache, share := t.valueCache()
	value := &evaluators.Value{Sampler: env.Sampler, N: t.nEvaluate, Temperature: t.temperature, Scores: t.scores, Judge: space.Judgement, Cache: cache, Share: share, ShareDuplicates: t.shareDuplicates}
	vote := &evaluators.Vote{Sampler: env.Sampler, N: t.nEvaluate, Temperature: t.temperature, Parse: space.ParseVote}

	var (
		mu     sync.Mutex
		stats  = map[int]*StepStats{}
		valued = map[string]float64{} // state → last value, for dfs's solved test
	)
	stat := func(depth int) *StepStats {
		if stats[depth] == nil {
			stats[depth] = &StepStats{Depth: depth}
		}
		return stats[depth]
	}
	prob := search.Problem[string]{
		Expand: func(ctx context.Context, state string, depth int) ([]string, error) {
			children, err := t.expand(ctx, env, space, inst, state)
			mu.Lock()
			stat(depth+1).Calls++
			mu.Unlock()
			return children, err
		},
		Evaluate: func(ctx context.Context, _ []string, cands []string, depth int) ([]float64, error) {
			vals, st, err := t.evaluateStep(ctx, env, space, value, vote, inst, cands)
			mu.Lock()
			defer mu.Unlock()
			s := stat(depth)
			s.Candidates += len(cands)
			s.Calls += st.Calls
			s.CacheHits += st.CacheHits
			s.Duplicates += st.Duplicates
			for i, c := range cands {
				if err == nil {
					valued[c] = vals[i]
				}
			}
			return vals, err
		},
		IsTerminal: func(state string, depth int) bool { return depth >= steps || space.Final(state) },
		Solved: func(state string) bool {
			mu.Lock()
			defer mu.Unlock()
			return space.Final(state) && valued[state] >= t.solvedValue
		},
	}
	var res search.Result[string]
	var err error
	switch t.search {
	case "dfs":
		res, err = search.DFS(ctx, prob, "", search.DFSOptions{Steps: steps, MaxSteps: t.maxSteps, Threshold: t.threshold})
	default:
		rng := rand.New(rand.NewPCG(uint64(env.Seed), uint64(inst.Index)))
		res, err = search.BFS(ctx, prob, "", search.BFSOptions{Steps: steps, Beam: t.b, Select: t.selection, Rand: rng, Concurrency: 16})
	}
	if err != nil {
		return Result{}, err
	}
	if err := env.tracer().Tree(ctx, treeNodes(res.Tree)); err != nil {
		return Result{}, err
	}
	d := totDetail{Best: res.Best, Final: res.Final, Expansions: res.Expansions, Found: res.Found}
	for depth := 1; depth <= steps; depth++ {
		if s, ok := stats[depth]; ok {
			d.Steps = append(d.Steps, *s)
		}
	}
	anyOK := false
	for _, id := range res.Final {
		ok := env.Task.Score(inst, res.Tree.Node(id).State).Correct
		d.FinalOK = append(d.FinalOK, ok)
		anyOK = anyOK || ok
	}
	out := ""
	if n := res.Tree.Node(res.Best); n != nil && res.Best >= 0 {
		out = n.State
	}
	score := env.Task.Score(inst, out)
	return Result{
		Output: out, Score: score, Accuracy: boolFloat(score.Correct),
		Metrics: mergeMetrics(map[string]float64{"any_at_b": boolFloat(anyOK), "top1": boolFloat(score.Correct)}, score.Metrics),
		Detail:  d,
	}, nil
}

// expand asks for the children of a state.
func (t *tot) expand(ctx context.Context, env Env, space tasks.ThoughtSpace, inst tasks.Instance, state string) ([]string, error) {
	if t.generate == "sample" {
		prompt, stop, err := space.SamplePrompt(env.Prompts, inst, state)
		if err != nil {
			return nil, err
		}
		resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), N: t.nGenerate,
			Temperature: t.temperature, Stop: stop, Purpose: "sample", Call: search.Site(ctx) + "/sample"})
		if err != nil {
			return nil, err
		}
		var out []string
		if j, ok := space.(tasks.SampleJoiner); ok { // the sample joins whole (creative writing)
			for _, c := range resp.Choices {
				out = append(out, j.JoinSample(state, c.Content))
			}
			return out, nil
		}
		for _, c := range resp.Choices {
			line, _, _ := strings.Cut(strings.TrimSpace(c.Content), "\n")
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, state+line+"\n")
			}
		}
		return out, nil
	}
	prompt, err := space.ProposePrompt(env.Prompts, inst, state)
	if err != nil {
		return nil, err
	}
	resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), N: t.nGenerate,
		Temperature: t.temperature, Purpose: "propose", Call: search.Site(ctx) + "/propose"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range resp.Choices {
		out = append(out, space.Proposals(inst, state, c.Content)...)
	}
	return out, nil
}

// evaluateStep scores one step's candidates with the chosen evaluator.
func (t *tot) evaluateStep(ctx context.Context, env Env, space tasks.ThoughtSpace, value *evaluators.Value,
	vote *evaluators.Vote, inst tasks.Instance, cands []string) ([]float64, evaluators.Stats, error) {
	if t.evaluate == "vote" {
		prompt, err := space.VotePrompt(env.Prompts, inst, cands)
		if err != nil {
			return nil, evaluators.Stats{}, err
		}
		counts, _, err := vote.Evaluate(ctx, search.Site(ctx), prompt, len(cands))
		return counts, evaluators.Stats{Calls: 1}, err
	}
	cs := make([]evaluators.Candidate, len(cands))
	for i, c := range cands {
		prompt, ok, err := space.ValuePrompt(env.Prompts, inst, c)
		if err != nil {
			return nil, evaluators.Stats{}, err
		}
		cs[i] = evaluators.Candidate{State: c, Prompt: prompt, Skip: !ok}
	}
	return value.Evaluate(ctx, search.Site(ctx), cs)
}

// valueShare is the name under which value_cache=run declares its sharing.
const valueShare = "tot_value"

// valueCache is the item's memo of values by prompt and the sharing its
// draws declare: value_cache=item one draw per prompt in the item, run one
// per prompt in the run (llm.Request.Share), off none.
func (t *tot) valueCache() (*evaluators.Cache, string) {
	switch t.cacheScope {
	case "run":
		return evaluators.NewCache(), valueShare
	case "item":
		return evaluators.NewCache(), ""
	}
	return nil, ""
}

func treeNodes(tr search.Tree[string]) []TreeNode {
	out := make([]TreeNode, len(tr.Nodes))
	for i, n := range tr.Nodes {
		out[i] = TreeNode{ID: n.ID, Parent: n.Parent, Depth: n.Depth, Thought: n.State, Value: n.Value,
			Selected: n.Selected, Pruned: n.Pruned, Terminal: n.Terminal}
	}
	return out
}
