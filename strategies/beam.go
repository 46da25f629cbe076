package strategies

import (
	"context"
	"fmt"
	"slices"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// beam is step-level beam search guided by a process reward model, as
// search-and-learn's beam_search (src/sal/search/beam_search.py):
//
//   - n beams, each iteration one step per active beam (stop "\n\n", one
//     sample), the last iteration writing to the end;
//   - before an iteration the active beams are repeated in order,
//     (active × ⌈n/k⌉+1)[:n], so the n/beam_width survivors get about
//     beam_width expansions each;
//   - every beam is scored by the verifier on its whole text so far and its
//     step scores folded by agg; a beam that completes (empty step, length
//     limit, a final answer; see readStep) leaves the search with its
//     scores;
//   - filter_duplicates keeps the first of beams with identical text; the
//     n/beam_width best by aggregated score survive. Ties: numpy's argsort
//     on the scores, whose sort on arrays up to 16 long is a stable
//     insertion sort, takes the last k of the ascending order, so among equal
//     scores the later beam survives; this code does the same at any size;
//   - at the end the completed beams, in order of completion (or by score,
//     sort_completed, stable), are cut or repeated to n; the answer is the
//     first with the highest aggregated score (select=best; weighted and
//     majority choose among the same n).
//
// A beam's score is its last scoring's step scores folded by agg, as the
// reference keeps all_scores = score[0] (a fork that appends every
// iteration's list instead would aggregate lists). Where it differs:
// lookahead is left out: beam_search.py generates the lookahead steps but
// scores the beam's text without them, so they change the cost and
// nothing chosen.
type beam struct {
	ttsCommon
	width, iterations int
	filterDuplicates  bool
	sortCompleted     bool
}

var beamParams = append(ttsCommonParams(4, selectBest,
	"how the answer is chosen among the n completed beams: best (highest aggregated score, search-and-learn's pred), weighted, majority"),
	param.Param{Name: "beam_width", Kind: param.Int, Default: 4, Min: param.Bound(1), Max: param.Bound(1024), Show: true, Doc: "expansions per surviving beam, M: n/M beams survive each step (search-and-learn's beam_width)"},
	param.Param{Name: "num_iterations", Kind: param.Int, Default: 40, Min: param.Bound(1), Max: param.Bound(1000), Doc: "steps at most; the last writes to the end (search-and-learn's num_iterations)"},
	param.Param{Name: "filter_duplicates", Kind: param.Bool, Default: false, Doc: "drop active beams whose text repeats an earlier one's before selection"},
	param.Param{Name: "sort_completed", Kind: param.Bool, Default: false, Doc: "keep the n completed beams with the highest scores instead of the first n to complete"},
)

func newBeam(v param.Values) (Strategy, error) {
	s := &beam{ttsCommon: newTTSCommon(v), width: v.Int("beam_width"), iterations: v.Int("num_iterations"),
		filterDuplicates: v.Bool("filter_duplicates"), sortCompleted: v.Bool("sort_completed")}
	if s.width > s.n {
		return nil, fmt.Errorf("beam_width=%d exceeds n=%d: no beam would survive a step", s.width, s.n)
	}
	return s, nil
}

// CheckTask rejects a vote key the task does not know.
func (s *beam) CheckTask(t tasks.Task) error { return s.checkTask(t) }

// NeedsVerifier implements VerifierUser.
func (s *beam) NeedsVerifier() string {
	return "beam ranks partial solutions by the verifier's step scores"
}

// beamState is one beam.
type beamState struct {
	steps  []string
	scores []float64
	score  float64
	done   bool
	node   int // its last node in the traced tree (0: the root)
	added  []string
	bad    string // why its last scoring was invalid
}

// BeamIteration is one iteration of beam as stored in the detail.
type BeamIteration struct {
	Scores    []float64 `json:"scores"`    // each active beam's aggregated score
	Completed []int     `json:"completed"` // positions that completed
	Kept      []int     `json:"kept"`      // positions that survived
}

func (s *beam) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if err := needVerifier(env, s.NeedsVerifier()); err != nil {
		return Result{}, err
	}
	prompt, err := render(env, stepsTemplate, PromptData{Input: inst.Input})
	if err != nil {
		return Result{}, err
	}
	sc := &stepScorer{env: env, problem: inst.Input, agg: s.agg}
	active := make([]*beamState, s.n)
	for i := range active {
		active[i] = &beamState{}
	}
	var completed []*beamState
	var log []BeamIteration
	// The traced tree: the root, then each iteration's beams in position
	// order, numbered after the iteration so that IDs do not depend on
	// scheduling.
	tree := []TreeNode{{ID: 0, Parent: -1}}
	keep := s.n / s.width
	for it := range s.iterations {
		if len(active) != s.n {
			ext := make([]*beamState, s.n)
			for j := range ext {
				b := active[j%len(active)]
				ext[j] = &beamState{steps: slices.Clone(b.steps), node: b.node}
			}
			active = ext
		}
		last := it == s.iterations-1
		err := parallel(len(active), func(j int) error {
			b := active[j]
			call := fmt.Sprintf("s%d/b%d", it, j)
			resp, err := env.Sampler.Sample(ctx, stepRequest(prompt, b.steps, !last, 1, s.temperature, s.maxTokens, "beam", call))
			if err != nil {
				return err
			}
			if len(resp.Choices) == 0 {
				return errNoChoices("beam " + call)
			}
			added, done := readStep(resp.Choices[0], b.steps)
			b.steps, b.done, b.added = concat(b.steps, added), done || last, added
			b.scores, b.score, b.bad, err = sc.score(ctx, call+"/verify", b.steps)
			return err
		})
		if err != nil {
			return Result{}, err
		}
		rec := BeamIteration{}
		var next []*beamState
		var pos []int
		nodeOf := make([]int, len(active))
		for j, b := range active {
			nodeOf[j] = len(tree)
			tree = append(tree, TreeNode{ID: len(tree), Parent: b.node, Depth: it + 1, Thought: joinSteps(b.added),
				Value: b.score, Terminal: b.done, Pruned: !b.done})
			b.node = nodeOf[j]
		}
		for j, b := range active {
			rec.Scores = append(rec.Scores, b.score)
			if b.done {
				completed = append(completed, b)
				rec.Completed = append(rec.Completed, j)
				continue
			}
			next, pos = append(next, b), append(pos, j)
		}
		if len(next) == 0 {
			log = append(log, rec)
			break
		}
		if s.filterDuplicates {
			seen := map[string]bool{}
			var uniq []*beamState
			var upos []int
			for k, b := range next {
				t := joinSteps(b.steps)
				if !seen[t] {
					seen[t] = true
					uniq, upos = append(uniq, b), append(upos, pos[k])
				}
			}
			next, pos = uniq, upos
		}
		kept := topK(next, keep)
		active = active[:0]
		for k, b := range next {
			if kept[k] {
				active = append(active, b)
				rec.Kept = append(rec.Kept, pos[k])
				tree[nodeOf[pos[k]]].Pruned, tree[nodeOf[pos[k]]].Selected = false, true
			}
		}
		log = append(log, rec)
	}
	if s.sortCompleted {
		slices.SortStableFunc(completed, func(a, b *beamState) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
	}
	if len(completed) > s.n {
		completed = completed[:s.n]
	}
	cs := make([]reading.Candidate, 0, s.n)
	for j := range s.n {
		if len(completed) == 0 {
			break
		}
		b := completed[j%len(completed)]
		cs = append(cs, reading.Candidate{Output: joinSteps(b.steps), Scores: b.scores, Score: b.score, Steps: len(b.steps), VerifierError: b.bad})
	}
	res := s.finish(env, inst, cs, sc, log)
	if d := res.Detail.(reading.TTSDetail); d.Pick >= 0 {
		tree[completed[d.Pick%len(completed)].node].Selected = true
	}
	if err := env.tracer().Tree(ctx, tree); err != nil {
		return Result{}, err
	}
	return res, nil
}

// topK marks the k beams with the highest scores: the last k of a stable
// ascending sort, so among equal scores the later beam is kept (numpy's
// argsort()[-k:] on up to 16 scores).
func topK(bs []*beamState, k int) []bool {
	idx := make([]int, len(bs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case bs[a].score < bs[b].score:
			return -1
		case bs[a].score > bs[b].score:
			return 1
		}
		return 0
	})
	kept := make([]bool, len(bs))
	for _, i := range idx[max(0, len(idx)-k):] {
		kept[i] = true
	}
	return kept
}
