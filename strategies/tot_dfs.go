package strategies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// totDFS is Tree of Thoughts' depth-first search as the reference runs it
// on Mini Crosswords (scripts/crosswords/search_crosswords-dfs.ipynb),
// decision for decision:
//
//   - a state's candidates come from n samples of the propose prompt,
//     each action weighted by its stated confidence and summed over the
//     samples; tried in descending sum, ties in the order first written;
//     cached by prompt, so a board reached twice gets the same list;
//   - a candidate is a child only while fewer than max_states states were
//     visited, the child has fewer than the task's MaxActions actions and
//     overwrites no letter; at most max_per_state children a state;
//   - each child's parts (clues with at most 3 blanks) are judged once
//     each (sure/maybe/impossible, cached by prompt); with prune, a child
//     with an impossible verdict is visited but not expanded;
//   - the output is the first visited state with the most actions (the
//     paper's ToT row), or with output=best_word the first with the highest
//     word score, an oracle that reads the solution (the paper's
//     "+best state").
//
// Where it differs: the notebook shares its two caches across all puzzles
// of a run, ours are per item (clue texts rarely repeat across puzzles);
// and once max_states states are visited it asks for no more proposals
// (the notebook still asks once, and uses none of them).
//
// With backtrack=false it is the notebook's greedy ablation (propose_score,
// the paper's "-backtrack"): each step takes the best candidate that
// overwrites nothing (the last one when all do), for greedy_steps steps
// or until no candidate is proposed. The notebook also stops when the
// board equals the solution; ours never reads it.
type totDFS struct {
	n                      int
	temperature            *float64
	maxPerState, maxStates int
	prune, backtrack       bool
	greedySteps            int
	output                 string
	checkCache             bool
}

var totDFSParams = []param.Param{
	{Name: "n_generate", Kind: param.Int, Default: 8, Min: param.Bound(1), Max: param.Bound(128), Doc: "propose samples per state (the notebook: 8; its greedy ablation: 5)"},
	temperatureParam("temperature", 0.7, "sampling temperature of proposals and verdicts"),
	{Name: "max_per_state", Kind: param.Int, Default: 3, Min: param.Bound(1), Max: param.Bound(100), Doc: "children visited per state"},
	{Name: "max_states", Kind: param.Int, Default: 100, Min: param.Bound(1), Max: param.Bound(100000), Doc: "states visited per instance (the notebook's time limit)"},
	{Name: "prune", Kind: param.Bool, Default: true, Doc: "do not expand a state with an 'impossible' verdict"},
	{Name: "backtrack", Kind: param.Bool, Default: true, Show: true, Doc: "false: the greedy ablation, one best candidate a step and no backtracking"},
	{Name: "greedy_steps", Kind: param.Int, Default: 20, Min: param.Bound(1), Max: param.Bound(1000), Doc: "backtrack=false: steps"},
	{Name: "check_cache", Kind: param.String, Default: "item", Allowed: []string{"item", "off"},
		Doc: "item: a check prompt is asked once per instance, its verdict reused (the notebook); off: every state asks all its checks"},
	{Name: "output", Kind: param.String, Default: "deepest", Allowed: []string{"deepest", "best_word"}, Show: true,
		Doc: "deepest: the first visited state with the most actions; best_word: ORACLE, the first with the highest word score (reads the solution)"},
}

func newToTDFS(v param.Values) (Strategy, error) {
	return &totDFS{n: v.Int("n_generate"), temperature: v.Temperature("temperature"),
		maxPerState: v.Int("max_per_state"), maxStates: v.Int("max_states"),
		prune: v.Bool("prune"), backtrack: v.Bool("backtrack"), greedySteps: v.Int("greedy_steps"),
		output: v.String("output"), checkCache: v.String("check_cache") == "item"}, nil
}

// CheckTask requires a fill space.
func (t *totDFS) CheckTask(task tasks.Task) error {
	if _, ok := task.(tasks.FillSpace); !ok {
		return fmt.Errorf("task %s has no fill space (proposals with confidence, per-part checks) for this search", task.Name())
	}
	return nil
}

// Verdicts counts a state's check answers.
type Verdicts struct {
	Sure       int `json:"sure"`
	Maybe      int `json:"maybe"`
	Impossible int `json:"impossible"`
}

// DFSState is one visited state, as the notebook logs it.
type DFSState struct {
	Step    int                `json:"step"`   // visit order, 0-based
	Parent  int                `json:"parent"` // -1: a child of the root
	Action  string             `json:"action"`
	Actions []string           `json:"actions"`
	Weight  float64            `json:"weight"` // the action's summed confidence
	Count   Verdicts           `json:"count"`
	Pruned  bool               `json:"pruned,omitempty"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

type totDFSDetail struct {
	States    []DFSState `json:"states"`
	Output    int        `json:"output"` // index into States; -1: none
	Rule      string     `json:"output_rule"`
	Oracle    bool       `json:"oracle,omitempty"`
	Proposals int        `json:"propose_calls"`
	Checks    int        `json:"check_calls"`
	CacheHits int        `json:"cache_hits"`
}

// dfsRun is one instance's search.
type dfsRun struct {
	t        *totDFS
	env      Env
	space    tasks.FillSpace
	inst     tasks.Instance
	proposed map[string][]candidate // propose prompt → ranked candidates
	verdicts map[string]string      // check prompt → verdict
	states   []DFSState
	detail   totDFSDetail
}

type candidate struct {
	action string
	weight float64
}

func (t *totDFS) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	r := &dfsRun{t: t, env: env, space: env.Task.(tasks.FillSpace), inst: inst,
		proposed: map[string][]candidate{}, verdicts: map[string]string{}}
	var err error
	if t.backtrack {
		err = r.visit(ctx, "", -1, "root")
	} else {
		err = r.greedy(ctx)
	}
	if err != nil {
		return Result{}, err
	}
	for i := range r.states {
		r.states[i].Metrics = env.Task.Score(inst, strings.Join(r.states[i].Actions, "\n")).Metrics
	}
	d := r.detail
	d.States, d.Rule, d.Oracle = r.states, t.output, t.output == "best_word"
	d.Output = r.choose()
	out := ""
	if d.Output >= 0 {
		out = strings.Join(r.states[d.Output].Actions, "\n")
	}
	if err := env.tracer().Tree(ctx, r.tree()); err != nil {
		return Result{}, err
	}
	score := env.Task.Score(inst, out)
	metrics := mergeMetrics(map[string]float64{"states": float64(len(r.states))}, score.Metrics)
	return Result{Output: out, Score: score, Accuracy: boolFloat(score.Correct), Metrics: metrics, Detail: d}, nil
}

// visit expands state (visit index k, -1 for the root) as the notebook's
// dfs does.
func (r *dfsRun) visit(ctx context.Context, state string, k int, id string) error {
	if len(r.states) >= r.t.maxStates {
		return nil // no child could be visited
	}
	cands, err := r.candidates(ctx, state, id+"/propose", true)
	if err != nil {
		return err
	}
	children := 0
	for _, c := range cands {
		child, conflict := r.space.Apply(r.inst, state, c.action)
		acts := splitActions(child)
		if len(r.states) >= r.t.maxStates || len(acts) >= r.space.MaxActions() || conflict {
			continue
		}
		if children++; children > r.t.maxPerState {
			break
		}
		step := len(r.states)
		count, err := r.check(ctx, child, fmt.Sprintf("s%d", step))
		if err != nil {
			return err
		}
		pruned := r.t.prune && count.Impossible >= 1
		r.states = append(r.states, DFSState{Step: step, Parent: k, Action: c.action, Actions: acts, Weight: c.weight,
			Count: count, Pruned: pruned})
		if !pruned {
			if err := r.visit(ctx, child, step, fmt.Sprintf("s%d", step)); err != nil {
				return err
			}
		}
	}
	return nil
}

// greedy is the notebook's propose_score: no backtracking.
func (r *dfsRun) greedy(ctx context.Context) error {
	state, parent := "", -1
	for step := range r.t.greedySteps {
		cands, err := r.candidates(ctx, state, fmt.Sprintf("g%d/propose", step), false)
		if err != nil {
			return err
		}
		if len(cands) == 0 {
			break
		}
		chosen := cands[len(cands)-1]
		for _, c := range cands {
			if _, conflict := r.space.Apply(r.inst, state, c.action); !conflict {
				chosen = c
				break
			}
		}
		state, _ = r.space.Apply(r.inst, state, chosen.action)
		r.states = append(r.states, DFSState{Step: step, Parent: parent, Action: chosen.action, Actions: splitActions(state),
			Weight: chosen.weight})
		parent = step
	}
	return nil
}

func splitActions(state string) []string {
	if strings.TrimSpace(state) == "" {
		return nil
	}
	return strings.Split(state, "\n")
}

// candidates samples the propose prompt n times and ranks the actions by
// summed confidence, ties in first-written order (Python's stable
// sorted(..., reverse=True)).
func (r *dfsRun) candidates(ctx context.Context, state, call string, cache bool) ([]candidate, error) {
	prompt, err := r.space.ProposePrompt(r.env.Prompts, r.inst, state)
	if err != nil {
		return nil, err
	}
	if got, ok := r.proposed[prompt]; ok && cache {
		r.detail.CacheHits++
		return got, nil
	}
	resp, err := r.env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), N: r.t.n, Temperature: r.t.temperature,
		Purpose: "propose", Call: call})
	if err != nil {
		return nil, err
	}
	r.detail.Proposals++
	var ranked []candidate
	at := map[string]int{}
	for _, c := range resp.Choices {
		for _, p := range r.space.Proposals(c.Content) {
			i, ok := at[p.Action]
			if !ok {
				i = len(ranked)
				at[p.Action] = i
				ranked = append(ranked, candidate{action: p.Action})
			}
			ranked[i].weight += p.Weight
		}
	}
	slices.SortStableFunc(ranked, func(a, b candidate) int {
		switch {
		case a.weight > b.weight:
			return -1
		case a.weight < b.weight:
			return 1
		}
		return 0
	})
	if cache {
		r.proposed[prompt] = ranked
	}
	return ranked, nil
}

// check judges every part of state worth judging, each prompt once per
// item; calls of one state run concurrently.
func (r *dfsRun) check(ctx context.Context, state, id string) (Verdicts, error) {
	checks, err := r.space.Checks(r.env.Prompts, r.inst, state)
	if err != nil {
		return Verdicts{}, err
	}
	type job struct {
		prompt, call, verdict string
		err                   error
	}
	var jobs []*job
	asked := map[string]bool{}
	if !r.t.checkCache {
		clear(r.verdicts)
	}
	for _, c := range checks {
		if _, ok := r.verdicts[c.Prompt]; ok {
			r.detail.CacheHits++
			continue
		}
		if asked[c.Prompt] {
			continue
		}
		asked[c.Prompt] = true
		jobs = append(jobs, &job{prompt: c.Prompt, call: id + "/value/" + c.Part})
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			resp, err := r.env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(j.prompt), Temperature: r.t.temperature,
				Purpose: "value", Call: j.call})
			if err != nil {
				j.err = err
				return
			}
			if len(resp.Choices) > 0 { // no choice: no verdict
				j.verdict = r.space.Verdict(resp.Choices[0].Content)
			}
		})
	}
	wg.Wait()
	r.detail.Checks += len(jobs)
	for _, j := range jobs {
		if j.err != nil {
			return Verdicts{}, fmt.Errorf("check %s: %w", j.call, j.err)
		}
		r.verdicts[j.prompt] = j.verdict
	}
	var v Verdicts
	for _, c := range checks {
		switch r.verdicts[c.Prompt] {
		case "sure":
			v.Sure++
		case "maybe":
			v.Maybe++
		case "impossible":
			v.Impossible++
		}
	}
	return v, nil
}

// choose picks the output state's index, or -1 when none was visited.
func (r *dfsRun) choose() int {
	best := -1
	for i, s := range r.states {
		if best < 0 {
			best = i
			continue
		}
		b := r.states[best]
		if r.t.output == "best_word" {
			if s.Metrics["word"] > b.Metrics["word"] {
				best = i
			}
		} else if len(s.Actions) > len(b.Actions) {
			best = i
		}
	}
	return best // greedy: the final board, the deepest
}

// tree is the search tree for the trace: the root, then each visited
// state under its parent.
func (r *dfsRun) tree() []TreeNode {
	nodes := []TreeNode{{ID: 0, Parent: -1, Selected: true}}
	for _, s := range r.states {
		nodes = append(nodes, TreeNode{ID: s.Step + 1, Parent: s.Parent + 1, Depth: len(s.Actions), Thought: s.Action,
			Value: s.Weight, Selected: true, Pruned: s.Pruned})
	}
	return nodes
}
