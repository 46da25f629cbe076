package strategies

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/reasonbench/reasonbench/evaluators"
	"github.com/reasonbench/reasonbench/search"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// mctsStrategy is Monte Carlo tree search over a task's thought space, in
// the manner of RAP (Hao et al., 2023): the states and steps are the ones
// ToT searches (tasks.ThoughtSpace), the model proposes or samples the next
// steps, and its judgement of a state (ToT's value or vote evaluators) is
// the reward. search.MCTS does the selection (UCT with constant c),
// expansion, rollout and backup.
//
// Where it differs from RAP's code: RAP's reward combines the model's
// self-evaluation with the log-probability of the action and its world
// model predicts the next state; here the thought space's text state is the
// world model (a step is appended to it) and the reward is the evaluator's
// alone, normalised to [0, 1] (value: the sum over n_evaluate judgements
// divided by n_evaluate × score_sure; vote: the share of n_evaluate votes),
// so c has the same meaning on every task. Rollouts go greedily to the
// best-valued child (LATS's rule) or sample in proportion to value.
//
// With value_cache=item (declared sharing, the default) a state is valued
// once per item (a state's value prompt does not change), and the cache is
// part of the checkpoint saved after every iteration, so a resumed item
// makes exactly the calls an uninterrupted one would; value_cache=off
// values a state anew each time it is a child again (two draws).
type mctsStrategy struct {
	t                         tot
	iterations, rolloutDepth  int
	c, solvedValue            float64
	backup, final, rolloutPol string
	memo                      bool
}

var mctsParams = []param.Param{
	{Name: "iterations", Kind: param.Int, Default: 10, Min: param.Bound(1), Max: param.Bound(10000), Show: true, Doc: "MCTS iterations (select, expand, simulate, back up) per instance"},
	{Name: "c", Kind: param.Float, Default: 1.0, Min: param.Bound(0), Max: param.Bound(100), Doc: "UCT exploration constant: Q + c·sqrt(ln N(parent)/N(child)); rewards are in [0,1]"},
	{Name: "generate", Kind: param.String, Default: "propose", Allowed: []string{"propose", "sample"}, Doc: "propose: one call lists next steps; sample: n_generate chain-of-thought continuations"},
	{Name: "evaluate", Kind: param.String, Default: "value", Allowed: []string{"value", "vote"}, Doc: "reward: value judges each child n_evaluate times; vote: n_evaluate votes over the children"},
	{Name: "n_generate", Kind: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(1000), Doc: "samples per expansion"},
	{Name: "n_evaluate", Kind: param.Int, Default: 3, Min: param.Bound(1), Max: param.Bound(1000), Doc: "judgements per child (value) or votes per expansion (vote)"},
	{Name: "steps", Kind: param.Int, Default: 0, Min: param.Bound(0), Max: param.Bound(100), Doc: "depth limit (0: the task's, 4 for game24)"},
	{Name: "rollout_depth", Kind: param.Int, Default: 0, Min: param.Bound(0), Max: param.Bound(100), Doc: "levels a simulation may descend below the selected node (0: to the depth limit)"},
	{Name: "rollout", Kind: param.String, Default: search.RolloutGreedy, Allowed: []string{search.RolloutGreedy, search.RolloutSample}, Doc: "simulation policy: the best-valued child, or one drawn in proportion to value (seeded)"},
	{Name: "backup", Kind: param.String, Default: search.BackupMean, Allowed: []string{search.BackupMean, search.BackupMax}, Doc: "a node's Q: the mean or the maximum of the returns through it"},
	{Name: "final", Kind: param.String, Default: search.FinalMostVisited, Allowed: []string{search.FinalMostVisited, search.FinalBestValue}, Doc: "the answer: follow the most visited children, or the best-valued final state"},
	{Name: "solved_value", Kind: param.Float, Default: 1.0, Doc: "stop early at a final state whose reward is at least this (above 1: never)"},
	temperatureParam("temperature", 0.7, "sampling temperature of every call; the diversity of expansions, rollouts and evaluations depends on it"),
	{Name: "score_sure", Kind: param.Float, Default: 20.0, Min: param.Bound(0.000001), Doc: "value of the judgement 'sure' (the maximum; rewards are divided by it)"},
	{Name: "score_likely", Kind: param.Float, Default: 1.0, Doc: "value of the judgement 'likely'"},
	{Name: "score_impossible", Kind: param.Float, Default: 0.001, Doc: "value of the judgement 'impossible'"},
	{Name: "duplicates", Kind: param.String, Default: "zero", Allowed: []string{"zero", "share"}, Doc: "identical children of one expansion: later ones get 0 (ToT reference) or share the value"},
	{Name: "value_cache", Kind: param.String, Default: "item", Allowed: []string{"item", "off"}, Doc: "declared sharing of value draws: a state valued once per instance (kept in the checkpoint), or each time it is reached"},
}

func newMCTS(v param.Values) (Strategy, error) {
	return &mctsStrategy{
		t: tot{generate: v.String("generate"), evaluate: v.String("evaluate"), nGenerate: v.Int("n_generate"),
			nEvaluate: v.Int("n_evaluate"), steps: v.Int("steps"), temperature: v.Temperature("temperature"),
			scores:          evaluators.Scores{"sure": v.Float("score_sure"), "likely": v.Float("score_likely"), "impossible": v.Float("score_impossible")},
			shareDuplicates: v.String("duplicates") == "share"},
		iterations: v.Int("iterations"), rolloutDepth: v.Int("rollout_depth"), c: v.Float("c"),
		solvedValue: v.Float("solved_value"), backup: v.String("backup"), final: v.String("final"), rolloutPol: v.String("rollout"),
		memo: v.String("value_cache") == "item",
	}, nil
}

// CheckTask requires a thought space.
func (s *mctsStrategy) CheckTask(task tasks.Task) error { return s.t.CheckTask(task) }

// mctsCheckpoint is an item's search after a completed iteration.
type mctsCheckpoint struct {
	Search search.MCTSState[string] `json:"search"`
	Valued map[string]float64       `json:"valued"` // state → reward, the item's value cache
}

// MCTSDetail is what an mcts item stores.
type MCTSDetail struct {
	Iterations  int    `json:"iterations"` // run (fewer when solved early)
	Nodes       int    `json:"nodes"`
	Expansions  int    `json:"expansions"`
	Evaluations int    `json:"evaluations"`
	Found       bool   `json:"found,omitempty"` // stopped at a state valued at least solved_value
	Best        int    `json:"best"`
	BestVisits  int    `json:"best_visits"`
	Terminals   []int  `json:"terminals"` // final states in the tree
	TerminalsOK []bool `json:"terminals_correct"`
}

func (s *mctsStrategy) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	space := env.Task.(tasks.ThoughtSpace)
	steps := s.t.steps
	if steps == 0 {
		steps = space.Steps()
	}
	value := &evaluators.Value{Sampler: env.Sampler, N: s.t.nEvaluate, Temperature: s.t.temperature, Scores: s.t.scores, Judge: space.Judgement, ShareDuplicates: s.t.shareDuplicates}
	vote := &evaluators.Vote{Sampler: env.Sampler, N: s.t.nEvaluate, Temperature: s.t.temperature, Parse: space.ParseVote}
	scale := float64(s.t.nEvaluate)
	if s.t.evaluate == "value" {
		scale *= s.t.scores["sure"]
	}

	var mu sync.Mutex
	cp := mctsCheckpoint{Valued: map[string]float64{}}
	prob := search.Problem[string]{
		Expand: func(ctx context.Context, state string, _ int) ([]string, error) {
			return s.t.expand(ctx, env, space, inst, state)
		},
		Evaluate: func(ctx context.Context, _ []string, cands []string, _ int) ([]float64, error) {
			// Ask only for states not valued before; a vote compares the
			// children of one expansion, so it is never cached.
			out := make([]float64, len(cands))
			var ask []string
			var at []int
			mu.Lock()
			for i, c := range cands {
				if v, ok := cp.Valued[c]; ok && s.t.evaluate == "value" && s.memo {
					out[i] = v
					continue
				}
				ask = append(ask, c)
				at = append(at, i)
			}
			mu.Unlock()
			if len(ask) == 0 {
				return out, nil
			}
			vals, _, err := s.t.evaluateStep(ctx, env, space, value, vote, inst, ask)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			for k, i := range at {
				out[i] = vals[k] / scale
				if s.t.evaluate == "value" {
					cp.Valued[ask[k]] = out[i]
				}
			}
			return out, nil
		},
		IsTerminal: func(state string, depth int) bool { return depth >= steps || space.Final(state) },
		Solved: func(state string) bool {
			mu.Lock()
			defer mu.Unlock()
			v, ok := cp.Valued[state]
			return ok && space.Final(state) && v >= s.solvedValue
		},
	}
	if s.t.evaluate == "vote" {
		// Votes are not cached, so Solved reads the node's value instead.
		prob.Solved = nil
	}
	o := search.MCTSOptions{Iterations: s.iterations, C: s.c, MaxDepth: steps, RolloutDepth: s.rolloutDepth,
		Backup: s.backup, Final: s.final, Rollout: s.rolloutPol, Seed: itemSeed(env.Seed, inst.Index)}
	after := func(ctx context.Context, st *search.MCTSState[string]) error {
		if env.Checkpoint == nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		cp.Search = *st
		return env.Checkpoint.Save(ctx, st.Done, cp)
	}
	var res search.Result[string]
	var err error
	resumed := false
	if env.Checkpoint != nil {
		var saved mctsCheckpoint
		next, ok, lerr := env.Checkpoint.Load(ctx, &saved)
		if lerr != nil {
			return Result{}, lerr
		}
		if ok {
			if next != saved.Search.Done || saved.Search.Tree.Len() == 0 {
				return Result{}, fmt.Errorf("mcts: checkpoint says iteration %d is next but holds %d", next, saved.Search.Done)
			}
			if saved.Valued == nil {
				saved.Valued = map[string]float64{}
			}
			cp = saved
			st := cp.Search
			res, err = search.ResumeMCTS(ctx, prob, &st, o, after)
			resumed = true
		}
	}
	if !resumed {
		res, err = search.MCTS(ctx, prob, "", o, after)
	}
	if err != nil {
		return Result{}, err
	}
	if err := env.tracer().Tree(ctx, mctsTreeNodes(res.Tree)); err != nil {
		return Result{}, err
	}
	d := MCTSDetail{Iterations: res.Steps, Nodes: res.Tree.Len(), Expansions: res.Expansions, Evaluations: res.Evaluations,
		Found: res.Found, Best: res.Best, Terminals: res.Final}
	anyOK := false
	for _, id := range res.Final {
		ok := env.Task.Score(inst, res.Tree.Node(id).State).Correct
		d.TerminalsOK = append(d.TerminalsOK, ok)
		anyOK = anyOK || ok
	}
	out := ""
	if n := res.Tree.Node(res.Best); n != nil {
		out = n.State
		d.BestVisits = n.Visits
	}
	score := env.Task.Score(inst, out)
	return Result{
		Output: out, Score: score, Accuracy: boolFloat(score.Correct),
		Metrics: mergeMetrics(map[string]float64{"any_correct": boolFloat(anyOK), "top1": boolFloat(score.Correct),
			"iterations": float64(res.Steps), "nodes": float64(res.Tree.Len())}, score.Metrics),
		Detail: d,
	}, nil
}

// itemSeed derives the rollout seed of an item from the run's seed.
func itemSeed(seed int64, index int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", seed, index)
	return h.Sum64()
}

// mctsTreeNodes traces an MCTS tree: Value is the node's evaluation (its
// reward), Visits its visit count; Selected marks expanded nodes.
func mctsTreeNodes(tr search.Tree[string]) []TreeNode {
	out := treeNodes(tr)
	for i, n := range tr.Nodes {
		out[i].Visits = n.Visits
	}
	return out
}
