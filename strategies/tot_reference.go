package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/evaluators"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// protocol=reference replays the ToT reference implementation's BFS
// (princeton-nlp/tree-of-thought-llm, methods/bfs.py with --method_generate
// propose --method_evaluate value) decision for decision:
//   - every step expands every beam state, terminal or not, for the task's
//     number of steps;
//   - a propose answer is split on "\n" and every piece, empty ones
//     included, becomes the child y+piece+"\n", in order;
//   - values are asked candidate by candidate: a candidate equal to an
//     earlier one of the same step gets 0 without a call; a prompt in the
//     value cache gets its cached value; otherwise one request with
//     n=n_evaluate, read by the task's reference arithmetic;
//   - value_cache=run: the reference's value cache lives on its task
//     object, so across puzzles, and stores the value its first asker
//     read, after the no-answer rule: a prompt first asked by four lines
//     without an answer stays 0 for every later asker, and a fourth line
//     whose prompt an earlier state valued gets that value. Here too: the
//     run's cache (runValues) keeps the first asker's value, the first
//     asker being the reference's (puzzles in range order, then steps,
//     then candidates), which is why the engine solves these runs one
//     puzzle at a time (Ordered) and a resumed run restores the cache
//     from the puzzles it has (Restore). Each prompt's draw is declared
//     shared (llm.Request.Share), its seed from the run's and the prompt;
//   - value_cache=item keeps the same rule within a puzzle;
//   - greedy keeps the b best by a stable sort, ties in candidate order;
//     sample draws b with replacement in proportion to value (the
//     reference's distribution, from our seeded generator, not numpy's);
//   - every call sends max_tokens 1000, no stop, temperature as set.
// A step's value calls, which the reference makes one after another, run
// concurrently here; each has its own identity (its prompt, or step and
// candidate), and the values are assigned in candidate order afterwards,
// so they do not depend on the order the answers arrive in. Propose calls
// go beam after beam, as the reference's.

const referenceMaxTokens = 1000

// ReferenceStep is one step of the reference's log: the beam it started
// from, every candidate in order, their values, and the beam kept.
type ReferenceStep struct {
	Step        int       `json:"step"`
	Ys          []string  `json:"ys"`
	NewYs       []string  `json:"new_ys"`
	Values      []float64 `json:"values"`
	SelectNewYs []string  `json:"select_new_ys"`
}

func (t *tot) checkReference(task tasks.Task) error {
	if _, ok := task.(tasks.ReferenceThoughts); !ok {
		return fmt.Errorf("task %s has no reference thought space: use protocol=harness", task.Name())
	}
	if t.generate != "propose" || t.evaluate != "value" || t.search != "bfs" {
		return fmt.Errorf("protocol=reference replays generate=propose evaluate=value search=bfs; got generate=%s evaluate=%s search=%s",
			t.generate, t.evaluate, t.search)
	}
	return nil
}

func (t *tot) solveReference(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	ref := env.Task.(tasks.ReferenceThoughts)
	steps := t.steps
	if steps == 0 {
		steps = env.Task.(tasks.ThoughtSpace).Steps()
	}
	cache, share := t.valueCache()
	if t.runValues != nil {
		cache = t.runValues
	}
	rng := rand.New(rand.NewPCG(uint64(env.Seed), uint64(inst.Index)))

	nodes := []TreeNode{{ID: 0, Parent: -1, Selected: true}}
	ys, ysIDs := []string{""}, []int{0}
	var d totDetail
	for step := 0; step < steps; step++ {
		st := StepStats{Depth: step + 1}
		var newYs []string
		var parents []int
		for i, y := range ys {
			prompt, err := ref.ReferenceProposePrompt(env.Prompts, inst, y)
			if err != nil {
				return Result{}, err
			}
			resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), N: 1,
				Temperature: t.temperature, MaxTokens: referenceMaxTokens, Purpose: "propose",
				Call: fmt.Sprintf("s%d/f%d/propose", step+1, i)})
			if err != nil {
				return Result{}, fmt.Errorf("propose: %w", err)
			}
			st.Calls++
			text := ""
			if len(resp.Choices) > 0 {
				text = resp.Choices[0].Content
			}
			for _, line := range strings.Split(text, "\n") {
				newYs = append(newYs, y+line+"\n")
				parents = append(parents, ysIDs[i])
			}
		}
		values, err := t.referenceValues(ctx, env, ref, inst, cache, share, step+1, newYs, &st)
		if err != nil {
			return Result{}, err
		}
		sel := t.referenceSelect(values, rng)
		selected := map[int]bool{}
		first := len(nodes)
		for i, y := range newYs {
			nodes = append(nodes, TreeNode{ID: first + i, Parent: parents[i], Depth: step + 1, Thought: y,
				Value: values[i], Terminal: step+1 == steps})
		}
		rs := ReferenceStep{Step: step, Ys: ys, NewYs: newYs, Values: values}
		ys, ysIDs = nil, nil
		for _, i := range sel {
			ys = append(ys, newYs[i])
			ysIDs = append(ysIDs, first+i)
			nodes[first+i].Selected = true
			selected[i] = true
		}
		for i := range newYs {
			nodes[first+i].Pruned = !selected[i]
		}
		rs.SelectNewYs = ys
		d.Reference = append(d.Reference, rs)
		st.Candidates = len(newYs)
		d.Steps = append(d.Steps, st)
		d.Expansions += len(rs.Ys)
	}
	if err := env.tracer().Tree(ctx, nodes); err != nil {
		return Result{}, err
	}
	d.Final, d.Best = ysIDs, -1
	anyOK := false
	for _, y := range ys {
		ok := env.Task.Score(inst, y).Correct
		d.FinalOK = append(d.FinalOK, ok)
		anyOK = anyOK || ok
	}
	out := ""
	if len(ys) > 0 {
		out, d.Best = ys[0], ysIDs[0]
	}
	score := env.Task.Score(inst, out)
	return Result{
		Output: out, Score: score, Accuracy: boolFloat(score.Correct),
		Metrics: map[string]float64{"any_at_b": boolFloat(anyOK), "top1": boolFloat(score.Correct)},
		Detail:  d,
	}, nil
}

// referenceValues is the reference's get_values: see the comment above.
func (t *tot) referenceValues(ctx context.Context, env Env, ref tasks.ReferenceThoughts, inst tasks.Instance,
	cache *evaluators.Cache, share string, step int, ys []string, st *StepStats) ([]float64, error) {
	type job struct {
		prompt  string
		call    string
		targets []int
		outputs []string
		err     error
	}
	values := make([]float64, len(ys))
	seen := map[string]bool{}
	var jobs []*job
	inStep := map[string]*job{} // prompts asked in this step, for the cache
	for i, y := range ys {
		if seen[y] {
			st.Duplicates++
			continue
		}
		seen[y] = true
		prompt, err := ref.ReferenceValuePrompt(env.Prompts, inst, y)
		if err != nil {
			return nil, err
		}
		if cache != nil {
			if v, ok := cache.Get(prompt); ok {
				values[i] = v
				st.CacheHits++
				continue
			}
			if j, ok := inStep[prompt]; ok {
				j.targets = append(j.targets, i)
				continue
			}
		}
		j := &job{prompt: prompt, targets: []int{i}, call: fmt.Sprintf("s%d/value/c%d", step, i)}
		if cache != nil {
			j.call = evaluators.PromptCall("value", prompt)
		}
		inStep[prompt] = j
		jobs = append(jobs, j)
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(j.prompt), N: t.nEvaluate,
				Temperature: t.temperature, MaxTokens: referenceMaxTokens, Purpose: "value",
				Call: j.call, Share: share})
			if err != nil {
				j.err = err
				return
			}
			for _, c := range resp.Choices {
				j.outputs = append(j.outputs, c.Content)
			}
		})
	}
	wg.Wait()
	st.Calls += len(jobs)
	for _, j := range jobs {
		if j.err != nil {
			return nil, fmt.Errorf("value: %w", j.err)
		}
		// The reference caches the value of the first candidate that asked
		// (even a 0 from its no-answer rule) and later ones read it back.
		v := ref.ReferenceValue(inst, ys[j.targets[0]], j.outputs)
		cache.Put(j.prompt, v)
		for _, i := range j.targets {
			values[i] = v
			if i != j.targets[0] {
				st.CacheHits++
			}
		}
	}
	return values, nil
}

// InOrder implements Ordered: with the run-wide value cache a puzzle's
// values depend on the puzzles before it.
func (t *tot) InOrder() string {
	if t.protocol == "reference" && t.cacheScope == "run" {
		return "tot protocol=reference with value_cache=run keeps each value prompt's first asker's value, puzzles in range order"
	}
	return ""
}

// Restore implements Ordered: the run's value cache as the puzzles done
// left it. Each step's log holds every candidate's value in order, and a
// prompt's first asker's value is the one it stored.
func (t *tot) Restore(task tasks.Task, lib *prompts.Library, done []Solved) error {
	if t.runValues == nil {
		return nil
	}
	ref, ok := task.(tasks.ReferenceThoughts)
	if !ok {
		return fmt.Errorf("task %s has no reference thought space", task.Name())
	}
	t.runValues = evaluators.NewCache()
	for _, s := range done {
		var d struct {
			Reference []ReferenceStep `json:"reference_steps"`
		}
		if err := json.Unmarshal(s.Detail, &d); err != nil {
			return fmt.Errorf("item %d: reading its steps: %w", s.Instance.Index, err)
		}
		if len(d.Reference) == 0 {
			return fmt.Errorf("item %d has no reference steps to restore the value cache from", s.Instance.Index)
		}
		for _, st := range d.Reference {
			if len(st.Values) != len(st.NewYs) {
				return fmt.Errorf("item %d step %d: %d values for %d candidates", s.Instance.Index, st.Step, len(st.Values), len(st.NewYs))
			}
			seen := map[string]bool{}
			for i, y := range st.NewYs {
				if seen[y] { // a duplicate is 0 without asking
					continue
				}
				seen[y] = true
				prompt, err := ref.ReferenceValuePrompt(lib, s.Instance, y)
				if err != nil {
					return err
				}
				if _, ok := t.runValues.Get(prompt); !ok {
					t.runValues.Put(prompt, st.Values[i])
				}
			}
		}
	}
	return nil
}

// referenceSelect returns the indices of the kept candidates, best first.
func (t *tot) referenceSelect(values []float64, rng *rand.Rand) []int {
	ids := make([]int, len(values))
	for i := range ids {
		ids[i] = i
	}
	if t.selection == "sample" {
		total := 0.0
		for _, v := range values {
			total += v
		}
		if total <= 0 {
			return nil
		}
		out := make([]int, t.b)
		for k := range out {
			x, i := rng.Float64()*total, 0
			for ; i < len(values)-1 && x >= values[i]; i++ {
				x -= values[i]
			}
			out[k] = i
		}
		return out
	}
	sort.SliceStable(ids, func(a, b int) bool { return values[ids[a]] > values[ids[b]] })
	return ids[:min(t.b, len(ids))]
}
