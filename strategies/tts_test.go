package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/verify"
)

// arithVerifier is the tests' deterministic process reward model for Game
// of 24 solutions: a step whose arithmetic is right scores 0.8, wrong 0.2;
// an answer line whose expression is worth 24 scores 0.9, else 0.1;
// anything else 0.5. It reads only the steps (no gold) and records every
// request.
type arithVerifier struct {
	mu   sync.Mutex
	reqs []verify.Request
}

func (v *arithVerifier) Kind() string { return verify.PRM }

func (v *arithVerifier) Verify(_ context.Context, req verify.Request) (verify.Scores, error) {
	v.mu.Lock()
	v.reqs = append(v.reqs, req)
	v.mu.Unlock()
	out := make(verify.Scores, len(req.Steps))
	for i, s := range req.Steps {
		out[i] = arithScore(s)
	}
	return out, nil
}

func arithScore(step string) float64 {
	if expr, ok := game24.ExtractAnswer(step); ok {
		if e, err := game24.ParseExpr(expr); err == nil && e.Value().Cmp(big.NewRat(24, 1)) == 0 {
			return 0.9
		}
		return 0.1
	}
	if st, err := game24.ParseStep(strings.Split(step, "\n")[0]); err == nil {
		if r, err := game24.Arith(st.Op, st.A, st.B); err == nil && r.Cmp(st.Result) == 0 {
			return 0.8
		}
		return 0.2
	}
	return 0.5
}

// tableVerifier scores each step by a table (unknown steps: 0.5), or
// answers with fixed scores for every request when fixed is set.
type tableVerifier struct {
	table map[string]float64
	fixed verify.Scores
	err   error
}

func (v tableVerifier) Kind() string { return verify.PRM }

func (v tableVerifier) Verify(_ context.Context, req verify.Request) (verify.Scores, error) {
	if v.err != nil || v.fixed != nil {
		return v.fixed, v.err
	}
	out := make(verify.Scores, len(req.Steps))
	for i, s := range req.Steps {
		out[i] = 0.5
		if x, ok := v.table[s]; ok {
			out[i] = x
		}
	}
	return out, nil
}

// byCall answers each request with f(request) as its only choice(s).
type byCall struct {
	mu   sync.Mutex
	reqs []llm.Request
	f    func(req llm.Request, i int) llm.Choice
}

func (b *byCall) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	b.mu.Lock()
	b.reqs = append(b.reqs, req)
	b.mu.Unlock()
	var resp llm.Response
	for i := range req.Samples() {
		c := b.f(req, i)
		c.Index = i
		resp.Choices = append(resp.Choices, c)
	}
	return resp, nil
}

func strptr(s string) *string { return &s }

func TestSelectionRules(t *testing.T) {
	t.Parallel()
	c := func(key *string, score float64) reading.Candidate { return reading.Candidate{Key: key, Score: score} }
	a, b, d := strptr("a"), strptr("b"), strptr("d")
	cases := []struct {
		name                     string
		cs                       []reading.Candidate
		best, weighted, majority int
	}{
		{"weighted sums beat the single best", []reading.Candidate{c(a, 0.25), c(b, 0.875), c(a, 0.75)}, 1, 0, 0},
		{"majority and weighted disagree", []reading.Candidate{c(a, 0.125), c(a, 0.125), c(b, 0.5), c(a, 0.125)}, 2, 2, 0},
		{"ties go to the first answer seen", []reading.Candidate{c(b, 0.5), c(a, 0.5), c(a, 0.5), c(b, 0.5)}, 0, 0, 0},
		{"tied sums: first key, its first candidate", []reading.Candidate{c(d, 0.25), c(a, 0.5), c(d, 0.25)}, 1, 0, 0},
		{"abstainers count for nothing", []reading.Candidate{c(nil, 1), c(b, 0.25), c(a, 0.125), c(a, 0.0625)}, 0, 1, 2},
		{"nobody answers: weighted falls back to best", []reading.Candidate{c(nil, 0.25), c(nil, 0.75)}, 1, 1, -1},
		{"empty", nil, -1, -1, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := [3]int{pick(selectBest, tc.cs), pick(selectWeighted, tc.cs), pick(selectMajority, tc.cs)}
			if want := [3]int{tc.best, tc.weighted, tc.majority}; got != want {
				t.Errorf("best, weighted, majority = %v, want %v", got, want)
			}
		})
	}
}

// TestMajorityIsCoTSCsVote: bon's majority picks what CoT-SC's Vote picks.
func TestMajorityIsCoTSCsVote(t *testing.T) {
	t.Parallel()
	task := game24.NewTask()
	inst := puzzle(t, "4 5 6 10")
	outs := []string{"Answer: 4 * 5 + 10 - 6 = 24", "Answer: (10 - 6) * (5 + 4) = 24", "no answer",
		"Answer: (10-6)*(5+4) = 24", "Answer: 4*5+10-6 = 24"}
	for _, key := range task.VoteKeys() {
		var cs []reading.Candidate
		for _, o := range outs {
			cd := reading.Candidate{Output: o}
			if k, ok := task.AnswerKey(inst, o, key); ok {
				cd.Key = &k
			}
			cs = append(cs, cd)
		}
		if got, want := pickMajority(cs), Vote(task, inst, outs, key).Winner; got != want {
			t.Errorf("vote_key=%s: majority picks %d, CoT-SC's vote %d", key, got, want)
		}
	}
}

func TestTopKKeepsTheBestAndLaterOnTies(t *testing.T) {
	t.Parallel()
	mk := func(scores ...float64) []*beamState {
		var bs []*beamState
		for _, s := range scores {
			bs = append(bs, &beamState{score: s})
		}
		return bs
	}
	cases := []struct {
		scores []float64
		k      int
		want   []bool
	}{
		{[]float64{0.1, 0.9, 0.5, 0.7}, 2, []bool{false, true, false, true}},
		{[]float64{0.5, 0.9, 0.5, 0.2}, 2, []bool{false, true, true, false}},
		{[]float64{0.5, 0.5, 0.5}, 1, []bool{false, false, true}},
		{[]float64{0.3}, 2, []bool{true}},
	}
	for _, tc := range cases {
		if got := topK(mk(tc.scores...), tc.k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("topK(%v, %d) = %v, want %v", tc.scores, tc.k, got, tc.want)
		}
	}
}

func resolve(t *testing.T, name string, set map[string]any) Strategy {
	t.Helper()
	if name == "bon" {
		set = maps.Clone(set)
		delete(set, "beam_width")
		delete(set, "num_iterations")
	}
	spec, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := param.Resolve(spec.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBeamKeepsTheTopNOverM drives one beam search by hand: n=4 beams,
// beam_width=2, so 2 survive each step and each is expanded twice.
func TestBeamKeepsTheTopNOverM(t *testing.T) {
	t.Parallel()
	// Iteration 0: position j writes step "A<j>"; iteration 1 every beam
	// answers. Scores: A1 0.9, A0 and A2 tie at 0.5, A3 0.2: A1 survives
	// and the later of the tie, A2.
	sampler := &byCall{f: func(req llm.Request, _ int) llm.Choice {
		if len(req.Messages) == 1 {
			return llm.Choice{Content: "A" + req.Call[len("s0/b"):]}
		}
		partial := req.Messages[1].Content
		return llm.Choice{Content: "Answer: from " + strings.TrimSpace(partial) + " " + req.Call}
	}}
	v := tableVerifier{table: map[string]float64{"A0": 0.5, "A1": 0.9, "A2": 0.5, "A3": 0.2}}
	env := testEnv(t, sampler)
	env.Verifier = v
	var tree []TreeNode
	env.Trace = treeCatcher{&tree}
	res, err := resolve(t, "beam", map[string]any{"n": 4, "beam_width": 2, "num_iterations": 3}).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	d := res.Detail.(reading.TTSDetail)
	log := d.Search.([]BeamIteration)
	if len(log) != 2 || !reflect.DeepEqual(log[0].Kept, []int{1, 2}) {
		t.Fatalf("iterations %+v: want 2, the first keeping positions [1 2]", log)
	}
	// Iteration 1 continues (A1, A2, A1, A2): the survivors repeated in order.
	var cont []string
	for _, r := range sampler.reqs {
		if strings.HasPrefix(r.Call, "s1/") {
			cont = append(cont, r.Call+"="+strings.TrimSpace(r.Messages[1].Content))
			if r.Extra == nil || string(r.Extra["continue_final_message"]) != "true" || string(r.Extra["add_generation_prompt"]) != "false" {
				t.Errorf("%s: extra %v, want continue_final_message", r.Call, r.Extra)
			}
			if !reflect.DeepEqual(r.Stop, []string{"\n\n"}) {
				t.Errorf("%s: stop %q", r.Call, r.Stop)
			}
		}
	}
	want := []string{"s1/b0=A1", "s1/b1=A2", "s1/b2=A1", "s1/b3=A2"}
	if !sameSet(cont, want) {
		t.Errorf("iteration 1 continued %v, want %v", cont, want)
	}
	if len(d.Candidates) != 4 {
		t.Fatalf("%d candidates, want n=4", len(d.Candidates))
	}
	// The tree: the root, 4 first steps (positions 1 and 2 selected, 0 and
	// 3 pruned), 4 answers hanging off nodes 2, 3, 2, 3.
	if len(tree) != 9 {
		t.Fatalf("tree of %d nodes, want 9: %+v", len(tree), tree)
	}
	for id, want := range map[int]struct {
		parent           int
		selected, pruned bool
	}{1: {0, false, true}, 2: {0, true, false}, 3: {0, true, false}, 4: {0, false, true}, 5: {2, false, false}, 6: {3, false, false}, 7: {2, false, false}, 8: {3, false, false}} {
		n := tree[id]
		if n.Parent != want.parent || n.Pruned != want.pruned || (id < 5 && n.Selected != want.selected) {
			t.Errorf("node %d %+v, want parent %d selected %v pruned %v", id, n, want.parent, want.selected, want.pruned)
		}
	}
	for i, c := range d.Candidates {
		wantPrefix := []string{"A1", "A2", "A1", "A2"}[i] + "\n\nAnswer: from "
		if !strings.HasPrefix(c.Output, wantPrefix) {
			t.Errorf("candidate %d = %q, want it to start %q", i, c.Output, wantPrefix)
		}
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// simEnv is the simulated model behind the engine's identity middleware,
// with the arithmetic test verifier.
func simEnv(t *testing.T, mws ...llm.Middleware) (Env, *arithVerifier) {
	t.Helper()
	m, err := simulator.New(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t, m, mws...)
	v := &arithVerifier{}
	env.Verifier = v
	return env, v
}

// TestDVTSSubtreesAreIndependent: a subtree's search is the same whether
// it runs alone (n=2) or beside another (n=4), and the two subtrees of one
// run draw apart.
func TestDVTSSubtreesAreIndependent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	inst := puzzle(t, "1 2 4 7")
	solve := func(n int) reading.TTSDetail {
		env, _ := simEnv(t)
		res, err := resolve(t, "dvts", map[string]any{"n": n, "beam_width": 2, "num_iterations": 6, "temperature": 0.7}).Solve(ctx, env, inst)
		if err != nil {
			t.Fatal(err)
		}
		return res.Detail.(reading.TTSDetail)
	}
	one, two := solve(2), solve(4)
	if len(one.Candidates) != 2 || len(two.Candidates) != 4 {
		t.Fatalf("candidates %d and %d, want 2 and 4", len(one.Candidates), len(two.Candidates))
	}
	if !reflect.DeepEqual(one.Candidates, two.Candidates[:2]) || !reflect.DeepEqual(one.Search.([]DVTSTree)[0], two.Search.([]DVTSTree)[0]) {
		t.Errorf("subtree 0 alone %+v\nbeside subtree 1 %+v", one.Candidates, two.Candidates[:2])
	}
	if reflect.DeepEqual(two.Candidates[:2], two.Candidates[2:]) {
		t.Errorf("subtrees 0 and 1 wrote the same expansions %+v: they should be independent draws", two.Candidates)
	}
}

// TestDVTSPicksTheBestExpansion: every step a subtree keeps is the first
// expansion with the highest score, and the final answer is the best
// candidate.
func TestDVTSPicksTheBestExpansion(t *testing.T) {
	t.Parallel()
	// Expansion j of step i writes "S<i>x<j>"; the table makes x1 best at
	// step 0 and x0 and x2 tie at step 1 (the first, x0, wins).
	sampler := &byCall{f: func(req llm.Request, i int) llm.Choice {
		if req.Purpose == "lookahead" {
			return llm.Choice{Content: "look"}
		}
		step := strings.Split(req.Call, "/")[1]
		if step == "s2" {
			return llm.Choice{Content: fmt.Sprintf("Answer: %d", i)}
		}
		return llm.Choice{Content: fmt.Sprintf("S%sx%d", step[1:], i)}
	}}
	v := tableVerifier{table: map[string]float64{"S0x0": 0.25, "S0x1": 0.75, "S0x2": 0.5, "S1x0": 0.875, "S1x1": 0.5, "S1x2": 0.875, "look": 1}}
	env := testEnv(t, sampler)
	env.Verifier = v
	var tree []TreeNode
	env.Trace = treeCatcher{&tree}
	res, err := resolve(t, "dvts", map[string]any{"n": 3, "beam_width": 3, "num_iterations": 3, "agg": "min"}).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	d := res.Detail.(reading.TTSDetail)
	if got := d.Search.([]DVTSTree)[0].Chosen; !reflect.DeepEqual(got, []int{1, 0, 0}) {
		t.Errorf("chosen expansions %v, want [1 0 0]", got)
	}
	if len(d.Candidates) != 3 || !strings.HasPrefix(d.Candidates[0].Output, "S0x1\n\nS1x0\n\nAnswer: 0") {
		t.Errorf("candidates %+v", d.Candidates)
	}
	// The tree: the root, then 3 expansions a step, each step's hanging
	// off the last chosen one (S0x1 = node 2, S1x0 = node 4).
	var parents []int
	for _, n := range tree[1:] {
		parents = append(parents, n.Parent)
	}
	if want := []int{0, 0, 0, 2, 2, 2, 4, 4, 4}; !reflect.DeepEqual(parents, want) || !tree[2].Selected || !tree[4].Selected || tree[1].Selected {
		t.Errorf("tree parents %v (want %v): %+v", parents, want, tree)
	}
	// Lookahead calls continue each expansion greedily.
	looks := 0
	for _, r := range sampler.reqs {
		if r.Purpose == "lookahead" {
			looks++
			if r.Temperature == nil || *r.Temperature != 0 {
				t.Errorf("%s: lookahead temperature %v, want 0", r.Call, r.Temperature)
			}
		}
	}
	if looks != 6 { // 3 expansions at each of the first two steps; the last writes to the end
		t.Errorf("%d lookahead calls, want 6", looks)
	}
}

// TestTTSDeterministicAtAnyConcurrency runs each strategy over several
// puzzles on the simulator one call at a time and with all items at once:
// the results are identical.
func TestTTSDeterministicAtAnyConcurrency(t *testing.T) {
	t.Parallel()
	insts := []string{"4 5 6 10", "1 2 4 7", "2 9 10 12", "3 3 8 8", "1 1 4 6"}
	configs := []struct {
		name string
		set  map[string]any
	}{
		{"bon", map[string]any{"n": 4, "select": "weighted", "temperature": 0.7}},
		{"beam", map[string]any{"n": 4, "beam_width": 2, "num_iterations": 6, "temperature": 0.7}},
		{"dvts", map[string]any{"n": 4, "beam_width": 2, "num_iterations": 6, "temperature": 0.7}},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			run := func(conc int) []string {
				var mws []llm.Middleware
				if conc == 1 {
					mws = append(mws, llm.Limit(1))
				}
				out := make([]string, len(insts))
				var wg sync.WaitGroup
				for i, p := range insts {
					do := func() {
						env, _ := simEnv(t, mws...)
						res, err := resolve(t, cfg.name, cfg.set).Solve(context.Background(), env, puzzle(t, p))
						if err != nil {
							t.Error(err)
							return
						}
						b, _ := json.Marshal(res)
						out[i] = string(b)
					}
					if conc == 1 {
						do()
					} else {
						wg.Go(do)
					}
				}
				wg.Wait()
				return out
			}
			a, b := run(1), run(8)
			for i := range a {
				if a[i] != b[i] {
					t.Errorf("puzzle %s: concurrency 1 and 8 differ:\n%s\n%s", insts[i], a[i], b[i])
				}
			}
			if strings.Count(strings.Join(a, ""), `"correct":true`) == 0 {
				t.Errorf("no candidate right on any puzzle: the simulator is not continuing the steps")
			}
		})
	}
}

// TestTTSHostileModelOutput: empty, answerless, enormous and truncated
// output is a recorded failure, never a panic or a hang; a response without
// choices and a verifier's garbage are errors.
func TestTTSHostileModelOutput(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	outputs := map[string]llm.Choice{
		"empty":     {Content: ""},
		"blank":     {Content: "\n\n \n\n"},
		"no answer": {Content: "I think about it."},
		"enormous":  {Content: huge},
		"length":    {Content: "4 + 5 = 9", FinishReason: "length"},
		"many":      {Content: strings.Repeat("step\n\n", 5000)},
	}
	for name, ch := range outputs {
		for _, strat := range []string{"bon", "beam", "dvts"} {
			t.Run(strat+"/"+name, func(t *testing.T) {
				sampler := &byCall{f: func(llm.Request, int) llm.Choice { return ch }}
				env := testEnv(t, sampler)
				env.Verifier = &arithVerifier{}
				res, err := resolve(t, strat, map[string]any{"n": 4, "beam_width": 2, "num_iterations": 40}).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
				if err != nil {
					t.Fatal(err)
				}
				if res.Score.Correct {
					t.Errorf("output %q scored correct", res.Output)
				}
				// At most: beam's 4 beams, or dvts's 2 subtrees' request and
				// 2 lookaheads, a step for 40 steps.
				calls := len(sampler.reqs)
				if calls > 4*40*3 {
					t.Errorf("%d calls", calls)
				}
				// Output that ends a solution ends the search at once: one
				// request (bon), the 4 beams' first step, 2 subtrees' first.
				if ends := name != "no answer" && name != "many"; ends && calls != map[string]int{"bon": 1, "beam": 4, "dvts": 2}[strat] {
					t.Errorf("%d calls: %s output should end every solution at the first step", calls, name)
				}
			})
		}
	}
	// A verifier's garbage scores 0 and is counted, an item not a failed
	// run; its call's error (an unreachable server) is the run's error.
	for name, v := range map[string]verify.Verifier{
		"no scores":    tableVerifier{fixed: verify.Scores{}},
		"NaN":          tableVerifier{fixed: verify.Scores{math.NaN()}},
		"out of range": tableVerifier{fixed: verify.Scores{1.5}},
		"error":        tableVerifier{err: fmt.Errorf("verifier down")},
	} {
		for _, strat := range []string{"bon", "beam", "dvts"} {
			t.Run(strat+"/verifier "+name, func(t *testing.T) {
				env := testEnv(t, &byCall{f: func(llm.Request, int) llm.Choice { return llm.Choice{Content: "1 + 2 = 3"} }})
				env.Verifier = v
				res, err := resolve(t, strat, map[string]any{"n": 2, "beam_width": 2}).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
				if name == "error" {
					if err == nil || !strings.Contains(err.Error(), "verifier down") {
						t.Errorf("err = %v, want the verifier's error", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				d := res.Detail.(reading.TTSDetail)
				if res.Metrics["verifier_invalid"] == 0 || d.Candidates[0].VerifierError == "" || d.Candidates[0].Score != 0 {
					t.Errorf("metrics %v, candidate %+v: want the invalid answer recorded and scored 0", res.Metrics, d.Candidates[0])
				}
			})
		}
	}
	env := testEnv(t, &scripted{outputs: nil})
	env.Sampler = llm.Chain(llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) { return llm.Response{}, nil }), llm.Identify(3, 1))
	env.Verifier = &arithVerifier{}
	for _, strat := range []string{"bon", "beam", "dvts"} {
		if _, err := resolve(t, strat, map[string]any{"n": 2, "beam_width": 2}).Solve(context.Background(), env, puzzle(t, "4 5 6 10")); err == nil {
			t.Errorf("%s: no error for a response without choices", strat)
		}
	}
}

func TestNeedsVerifier(t *testing.T) {
	t.Parallel()
	cases := []struct {
		strat string
		set   map[string]any
		needs bool
	}{
		{"bon", map[string]any{"select": "best"}, true},
		{"bon", map[string]any{"select": "weighted"}, true},
		{"bon", map[string]any{"select": "majority"}, false},
		{"beam", nil, true},
		{"dvts", nil, true},
	}
	for _, tc := range cases {
		s := resolve(t, tc.strat, tc.set)
		vu, ok := s.(VerifierUser)
		if !ok {
			t.Fatalf("%s is not a VerifierUser", tc.strat)
		}
		if got := vu.NeedsVerifier() != ""; got != tc.needs {
			t.Errorf("%s %v: needs verifier %v, want %v", tc.strat, tc.set, got, tc.needs)
		}
		env := testEnv(t, &byCall{f: func(llm.Request, int) llm.Choice { return llm.Choice{Content: "Answer: 4 * 5 + 10 - 6 = 24"} }})
		_, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
		if tc.needs && (err == nil || !strings.Contains(err.Error(), "no verifier")) {
			t.Errorf("%s %v without a verifier: err %v", tc.strat, tc.set, err)
		}
		if !tc.needs && err != nil {
			t.Errorf("%s %v without a verifier: %v", tc.strat, tc.set, err)
		}
	}
}

func TestTTSParameterChecks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		strat string
		set   map[string]any
	}{
		{"dvts", map[string]any{"n": 6, "beam_width": 4}},
		{"beam", map[string]any{"n": 2, "beam_width": 4}},
	} {
		spec, _ := Lookup(c.strat)
		v, err := param.Resolve(spec.Params, c.set)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.New(v); err == nil {
			t.Errorf("%s %v: no error", c.strat, c.set)
		}
	}
	s := resolve(t, "bon", map[string]any{"vote_key": "nope"})
	if err := s.(TaskChecker).CheckTask(game24.NewTask()); err == nil {
		t.Error("bon vote_key=nope on game24: no error")
	}
}

var _ tasks.Task = game24.NewTask()

// ruleVerifier knows Game of 24's rule: the last step of a solution scores
// 1 when it is an answer the rule accepts for the problem's numbers (read
// from the request's problem, as any verifier may), else 0; earlier steps
// 0.5. A perfect outcome verifier under agg=last.
type ruleVerifier struct{}

func (ruleVerifier) Kind() string { return verify.PRM }

func (ruleVerifier) Verify(_ context.Context, req verify.Request) (verify.Scores, error) {
	nums, err := game24.ParsePuzzle(req.Problem)
	if err != nil {
		return nil, err
	}
	out := make(verify.Scores, len(req.Steps))
	for i := range out {
		out[i] = 0.5
	}
	out[len(out)-1] = boolFloat(game24.Check(nums, req.Steps[len(req.Steps)-1]).Correct)
	return out, nil
}

// TestPerfectVerifierReachesTheOracle: with a verifier that is never wrong
// about answers, best and weighted choose a right answer whenever one of
// the n solutions is right (acc = best_of_k on every item), which majority
// does not.
func TestPerfectVerifierReachesTheOracle(t *testing.T) {
	t.Parallel()
	puzzles := []string{"4 5 6 10", "1 2 4 7", "2 9 10 12", "3 3 8 8", "1 1 4 6", "1 4 8 8", "2 5 5 10", "1 3 4 6"}
	majorityMissed := 0
	for _, p := range puzzles {
		env, _ := simEnv(t)
		env.Verifier = ruleVerifier{}
		res, err := resolve(t, "bon", map[string]any{"n": 8, "temperature": 0.7}).Solve(context.Background(), env, puzzle(t, p))
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metrics
		if m["acc_best"] != m["best_of_k"] || m["acc_weighted"] != m["best_of_k"] || res.Accuracy != m["best_of_k"] {
			t.Errorf("%s: best %v weighted %v accuracy %v, oracle %v", p, m["acc_best"], m["acc_weighted"], res.Accuracy, m["best_of_k"])
		}
		if m["acc_majority"] < m["best_of_k"] {
			majorityMissed++
		}
	}
	if majorityMissed == 0 {
		t.Error("majority never missed a right answer among the samples: the puzzles do not tell the rules apart")
	}
}

// TestPicksAreStatsPicks holds bon's rules and the stats package's
// subset curves (bench report's every N' ≤ N) together.
func TestPicksAreStatsPicks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		k := 1 + rng.IntN(9)
		cs := make([]reading.Candidate, k)
		keys, scores, idx := make([]int, k), make([]float64, k), make([]int, k)
		for i := range cs {
			keys[i], scores[i], idx[i] = rng.IntN(4)-1, float64(rng.IntN(5))/4, i
			cs[i].Score = scores[i]
			if keys[i] >= 0 {
				cs[i].Key = strptr(fmt.Sprint(keys[i]))
			}
		}
		if got, want := pickWeighted(cs), stats.WeightedPick(keys, scores, idx); got != want {
			t.Fatalf("%v %v: weighted %d, stats %d", keys, scores, got, want)
		}
		if got, want := pickBest(cs), stats.BestPick(scores, idx); got != want {
			t.Fatalf("%v: best %d, stats %d", scores, got, want)
		}
		if got, want := pickMajority(cs), stats.Winner(keys, idx); got != want {
			t.Fatalf("%v: majority %d, stats.Winner %d", keys, got, want)
		}
	}
}

func TestReadStep(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		content string
		finish  string
		before  []string
		added   []string
		done    bool
	}{
		{"one step", "4 + 5 = 9 (left: 6 9 10)", "stop", nil, []string{"4 + 5 = 9 (left: 6 9 10)"}, false},
		{"boxed", "So the total is \\boxed{18}.", "stop", []string{"a"}, []string{"So the total is \\boxed{18}."}, true},
		{"answer line", "x\nAnswer: (4 + 5) * 6 - 10 * 3 = 24", "stop", nil, []string{"x\nAnswer: (4 + 5) * 6 - 10 * 3 = 24"}, true},
		{"answer word mid-line is no answer", "The Answer: is near", "stop", nil, []string{"The Answer: is near"}, false},
		{"no answer yet", "The answer will come.", "stop", nil, []string{"The answer will come."}, false},
		{"empty", "", "stop", []string{"a"}, nil, true},
		{"blank", " \n\n\t", "stop", nil, nil, true},
		{"length", "4 + 5", "length", nil, []string{"4 + 5"}, true},
		{"stop ignored: several steps", "a\n\nb\n\n\\boxed{1}", "stop", nil, []string{"a", "b", "\\boxed{1}"}, true},
		{"too long", strings.Repeat("y", maxSolutionBytes), "stop", []string{"z"}, []string{strings.Repeat("y", maxSolutionBytes)}, true},
	}
	for _, c := range cases {
		added, done := readStep(llm.Choice{Content: c.content, FinishReason: c.finish}, c.before)
		if !reflect.DeepEqual(added, c.added) || done != c.done {
			t.Errorf("%s: added %q done %v, want %q %v", c.name, added, done, c.added, c.done)
		}
	}
}

// FuzzSplitSteps: steps are never empty, never hold a blank-line separator
// or surrounding space, and splitting the joined steps gives them back.
func FuzzSplitSteps(f *testing.F) {
	for _, s := range []string{"", "a\n\nb", "\n\n\n", " a \n\n\n\n b\n", "4 + 5 = 9\n\nAnswer: 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		steps := splitSteps(text)
		for _, s := range steps {
			if s == "" || strings.Contains(s, stepSep) || s != strings.TrimSpace(s) {
				t.Fatalf("%q: step %q", text, s)
			}
		}
		if again := splitSteps(joinSteps(steps)); !reflect.DeepEqual(again, steps) && len(steps) > 0 {
			t.Fatalf("%q: steps %q, rejoined and split %q", text, steps, again)
		}
		added, done := readStep(llm.Choice{Content: text}, nil)
		if len(added) == 0 && !done {
			t.Fatalf("%q: nothing added and not done", text)
		}
	})
}

// TestBeamRepeatsFewSurvivorsInOrder: when fewer beams stay active than
// n/beam_width (5 of 8 complete at the first step, 3 survive where 4
// could), the next step continues the survivors repeated in order, as
// search-and-learn's (active × (n/len(active)+1))[:n].
func TestBeamRepeatsFewSurvivorsInOrder(t *testing.T) {
	t.Parallel()
	sampler := &byCall{f: func(req llm.Request, _ int) llm.Choice {
		if len(req.Messages) == 1 {
			j := req.Call[len("s0/b"):]
			if j < "5" {
				return llm.Choice{Content: "Answer: done at " + j}
			}
			return llm.Choice{Content: "B" + j}
		}
		return llm.Choice{Content: "Answer: from " + strings.TrimSpace(req.Messages[1].Content)}
	}}
	env := testEnv(t, sampler)
	env.Verifier = tableVerifier{}
	res, err := resolve(t, "beam", map[string]any{"n": 8, "beam_width": 2, "num_iterations": 3}).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	var cont []string
	for _, r := range sampler.reqs {
		if strings.HasPrefix(r.Call, "s1/") {
			cont = append(cont, r.Call+"="+strings.TrimSpace(r.Messages[1].Content))
		}
	}
	want := []string{"s1/b0=B5", "s1/b1=B6", "s1/b2=B7", "s1/b3=B5", "s1/b4=B6", "s1/b5=B7", "s1/b6=B5", "s1/b7=B6"}
	if !sameSet(cont, want) {
		t.Errorf("iteration 1 continued %v, want %v", cont, want)
	}
	log := res.Detail.(reading.TTSDetail).Search.([]BeamIteration)
	if len(log) != 2 || !reflect.DeepEqual(log[0].Completed, []int{0, 1, 2, 3, 4}) || !reflect.DeepEqual(log[0].Kept, []int{5, 6, 7}) {
		t.Errorf("iterations %+v: want 5 completed and positions 5, 6, 7 kept at the first", log)
	}
}
