package strategies

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// dvts is diverse verifier tree search, as search-and-learn's _dvts
// (src/sal/search/diverse_verifier_tree_search.py): n/beam_width
// independent subtrees, each greedy by the verifier. Each iteration a live
// subtree samples beam_width next steps (one request, n=beam_width, choice
// j at seed+j; the last iteration writes to the end), each continued by
// lookahead greedy steps (temperature 0) that are scored but not kept; the
// verifier scores the subtree's text plus each expansion and its lookahead,
// and the first expansion with the highest aggregated score is appended. A
// subtree stops when its chosen step is empty or ended by the length limit,
// or its text holds a final answer (search-and-learn: "boxed{"; here
// readStep's rule, which also accepts Game of 24's "Answer:" line). At the
// end every subtree yields its last beam_width expansions as candidates
// (the text before the last step plus each expansion, scored as it was
// scored with its lookahead), n in all; select=best takes the first with
// the highest score, as the reference's argmax.
//
// Subtrees share nothing: subtree k's calls are t<k>/..., so its result is
// the same whatever n is (tested). A request that returns fewer than
// beam_width choices stops its subtree after this step, as the reference
// prunes it; it yields the expansions it has.
type dvts struct {
	ttsCommon
	width, iterations, lookahead int
}

var dvtsParams = append(ttsCommonParams(4, selectBest,
	"how the answer is chosen among the n final expansions: best (highest aggregated score, search-and-learn's pred), weighted, majority"),
	param.Param{Name: "beam_width", Kind: param.Int, Default: 4, Min: param.Bound(1), Max: param.Bound(1024), Show: true, Doc: "expansions per subtree and step, M; n/M independent subtrees (n must be a multiple)"},
	param.Param{Name: "num_iterations", Kind: param.Int, Default: 40, Min: param.Bound(1), Max: param.Bound(1000), Doc: "steps at most; the last writes to the end"},
	param.Param{Name: "lookahead", Kind: param.Int, Default: 1, Min: param.Bound(0), Max: param.Bound(20), Doc: "greedy steps (temperature 0) written after each expansion to score it, then dropped (search-and-learn's lookahead, default 1)"},
)

func newDVTS(v param.Values) (Strategy, error) {
	s := &dvts{ttsCommon: newTTSCommon(v), width: v.Int("beam_width"), iterations: v.Int("num_iterations"), lookahead: v.Int("lookahead")}
	if s.n%s.width != 0 {
		return nil, fmt.Errorf("n=%d is not a multiple of beam_width=%d (dvts runs n/beam_width subtrees)", s.n, s.width)
	}
	return s, nil
}

// CheckTask rejects a vote key the task does not know.
func (s *dvts) CheckTask(t tasks.Task) error { return s.checkTask(t) }

// NeedsVerifier implements VerifierUser.
func (s *dvts) NeedsVerifier() string {
	return "dvts picks each subtree's next step by the verifier's step scores"
}

// expansion is one sampled next step of a subtree.
type expansion struct {
	added  []string // the step (or steps, when the model ignored the stop)
	done   bool
	scores []float64
	score  float64
	bad    string // why its scoring was invalid
}

// subtree is one of dvts's independent searches.
type subtree struct {
	steps, prev []string // the text so far, and before the last chosen step
	last        []expansion
	pruned      bool
	chosen      []int         // the expansion chosen at each iteration
	history     [][]expansion // every iteration's expansions, for the tree
}

// DVTSTree is one subtree as stored in the detail.
type DVTSTree struct {
	Chosen []int `json:"chosen"` // the expansion taken at each step
	Steps  int   `json:"steps"`
}

func (s *dvts) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if err := needVerifier(env, s.NeedsVerifier()); err != nil {
		return Result{}, err
	}
	prompt, err := render(env, stepsTemplate, PromptData{Input: inst.Input})
	if err != nil {
		return Result{}, err
	}
	trees := make([]*subtree, s.n/s.width)
	for k := range trees {
		trees[k] = &subtree{}
	}
	// Subtrees are independent: each runs its own loop, all at once.
	sc := &stepScorer{env: env, problem: inst.Input, agg: s.agg}
	err = parallel(len(trees), func(k int) error {
		return s.grow(ctx, env, sc, prompt, k, trees[k])
	})
	if err != nil {
		return Result{}, err
	}
	var cs []reading.Candidate
	var log []DVTSTree
	for _, t := range trees {
		log = append(log, DVTSTree{Chosen: t.chosen, Steps: len(t.steps)})
		for _, x := range t.last {
			steps := concat(t.prev, x.added)
			cs = append(cs, reading.Candidate{Output: joinSteps(steps), Scores: x.scores, Score: x.score, Steps: len(steps), VerifierError: x.bad})
		}
	}
	res := s.finish(env, inst, cs, sc, log)
	if err := env.tracer().Tree(ctx, dvtsTree(trees, res.Detail.(reading.TTSDetail).Pick)); err != nil {
		return Result{}, err
	}
	return res, nil
}

// dvtsTree is the traced tree: the root, then subtree by subtree and step
// by step every expansion, the chosen ones Selected (each step's others
// hang off the same parent); the final pick (candidate index) is marked
// too. IDs follow that order, whatever the scheduling was.
func dvtsTree(trees []*subtree, pick int) []TreeNode {
	nodes := []TreeNode{{ID: 0, Parent: -1}}
	cand := 0
	for _, t := range trees {
		parent := 0
		for it, xs := range t.history {
			first := len(nodes)
			for j, x := range xs {
				nodes = append(nodes, TreeNode{ID: len(nodes), Parent: parent, Depth: it + 1, Thought: joinSteps(x.added),
					Value: x.score, Terminal: x.done, Selected: j == t.chosen[it]})
			}
			if it == len(t.history)-1 && pick >= cand && pick < cand+len(xs) {
				nodes[first+pick-cand].Selected = true
			}
			parent = first + t.chosen[it]
		}
		cand += len(t.last)
	}
	return nodes
}

// grow runs subtree k to its end.
func (s *dvts) grow(ctx context.Context, env Env, sc *stepScorer, prompt string, k int, t *subtree) error {
	for it := 0; it < s.iterations && !t.pruned; it++ {
		last := it == s.iterations-1
		site := fmt.Sprintf("t%d/s%d", k, it)
		resp, err := env.Sampler.Sample(ctx, stepRequest(prompt, t.steps, !last, s.width, s.temperature, s.maxTokens, "dvts", site))
		if err != nil {
			return err
		}
		if len(resp.Choices) == 0 {
			return errNoChoices("dvts " + site)
		}
		xs := make([]expansion, len(resp.Choices))
		err = parallel(len(xs), func(j int) error {
			x := &xs[j]
			x.added, x.done = readStep(resp.Choices[j], t.steps)
			x.done = x.done || last
			scored := concat(t.steps, x.added)
			if !x.done && !last {
				look, err := s.look(ctx, env, prompt, scored, fmt.Sprintf("%s/x%d", site, j))
				if err != nil {
					return err
				}
				scored = concat(scored, look)
			}
			var verr error
			x.scores, x.score, x.bad, verr = sc.score(ctx, fmt.Sprintf("%s/x%d/verify", site, j), scored)
			return verr
		})
		if err != nil {
			return err
		}
		best := 0
		for j := range xs {
			if xs[j].score > xs[best].score {
				best = j
			}
		}
		t.prev, t.last = t.steps, xs
		t.history = append(t.history, xs)
		t.steps = concat(t.steps, xs[best].added)
		t.chosen = append(t.chosen, best)
		if xs[best].done || len(xs) < s.width {
			t.pruned = true
		}
	}
	return nil
}

// look writes the lookahead: up to s.lookahead greedy steps after steps,
// stopping early when one completes; calls <site>/look<i>.
func (s *dvts) look(ctx context.Context, env Env, prompt string, steps []string, site string) ([]string, error) {
	var out []string
	for i := range s.lookahead {
		resp, err := env.Sampler.Sample(ctx, stepRequest(prompt, concat(steps, out), true, 1, llm.Temp(0), s.maxTokens,
			"lookahead", fmt.Sprintf("%s/look%d", site, i)))
		if err != nil {
			return nil, err
		}
		if len(resp.Choices) == 0 {
			return nil, errNoChoices("lookahead " + site)
		}
		added, done := readStep(resp.Choices[0], concat(steps, out))
		out = append(out, added...)
		if done {
			break
		}
	}
	return out, nil
}
