package strategies

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// world is a scripted model for tree search on "4 5 6 10": proposals and
// judgements keyed by the numbers a prompt shows.
type world struct {
	proposals map[string][]string // current numbers → step lines
	judge     map[string]string   // numbers → sure/likely/impossible
	answer    string              // the Answer line written once 24 is left

	mu    sync.Mutex
	calls map[string]int // purpose → calls
	n     map[string]int // purpose → N of the last call
}

func newWorld() *world {
	return &world{
		proposals: map[string][]string{
			"4 5 6 10": {"4 * 5 = 20 (left: 6 10 20)", "10 - 6 = 4 (left: 4 4 5)", "4 * 5 = 20 (left: 6 10 20)", "4 + 5 = 9 (left: 6 9 10)"},
			"6 10 20":  {"10 - 6 = 4 (left: 4 20)", "20 - 10 = 10 (left: 6 10)"},
			"4 4 5":    {"4 * 5 = 20 (left: 4 20)", "4 + 4 = 8 (left: 5 8)"},
			"4 20":     {"4 + 20 = 24 (left: 24)"},
			"6 10":     {"6 + 10 = 16 (left: 16)"},
			"5 8":      {"5 * 8 = 40 (left: 40)"},
		},
		judge: map[string]string{
			"6 10 20": "sure", "4 4 5": "likely", "6 9 10": "impossible", "4 20": "sure", "6 10": "impossible",
			"5 8": "impossible", "24": "sure", "16": "impossible", "40": "impossible",
		},
		answer: "Answer: (4 * 5) + (10 - 6) = 24",
		calls:  map[string]int{}, n: map[string]int{},
	}
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func (w *world) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	w.mu.Lock()
	w.calls[req.Purpose]++
	w.n[req.Purpose] = req.Samples()
	w.mu.Unlock()
	prompt := req.Messages[len(req.Messages)-1].Content
	var text string
	switch req.Purpose {
	case "propose":
		if strings.Contains(prompt, "Steps:") { // 24 is left: write the answer
			text = w.answer
			break
		}
		in := strings.TrimPrefix(strings.Split(strings.TrimSpace(prompt), "\n")[len(strings.Split(strings.TrimSpace(prompt), "\n"))-2], "Input: ")
		text = strings.Join(w.proposals[in], "\n")
	case "value":
		if strings.HasSuffix(strings.TrimSpace(prompt), "Judge:") {
			text = "sure"
			break
		}
		text = "thinking\n" + w.judge[lastLineOf(prompt)]
	case "vote":
		text = "The best choice is 1"
	}
	var resp llm.Response
	for i := range req.Samples() {
		resp.Choices = append(resp.Choices, llm.Choice{Index: i, Content: text})
	}
	return resp, nil
}

func runToT(t *testing.T, w *world, params map[string]any, insts ...tasks.Instance) ([]Result, *tot) {
	t.Helper()
	spec, _ := Lookup("tot")
	v, err := param.Resolve(spec.Params, params)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := spec.New(v)
	var out []Result
	for _, inst := range insts {
		res, err := s.Solve(context.Background(), testEnv(t, w), inst)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out, s.(*tot)
}

func TestToTCallsPerStep(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		params        map[string]any
		propose       int
		value         int
		valuesByDepth []int // value calls per depth 1..4
	}{
		// b=1: root → 4 candidates, one a duplicate: 3 value calls; then 2, 1, 1.
		{"b1", map[string]any{"b": 1}, 4, 7, []int{3, 2, 1, 1}},
		// b=2: depth 2 has 4 candidates but "4 20" twice: 3 distinct prompts;
		// both beams then reach "24" and the same Answer: one prompt each.
		{"b2", map[string]any{"b": 2}, 1 + 2 + 2 + 2, 3 + 3 + 1 + 1, []int{3, 3, 1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			res, _ := runToT(t, w, c.params, puzzle(t, "4 5 6 10"))
			r := res[0]
			if w.calls["propose"] != c.propose || w.calls["value"] != c.value {
				t.Errorf("calls: propose %d value %d, want %d and %d", w.calls["propose"], w.calls["value"], c.propose, c.value)
			}
			if w.n["value"] != 3 {
				t.Errorf("value calls ask for n=%d, want n_evaluate=3", w.n["value"])
			}
			d := r.Detail.(totDetail)
			for i, want := range c.valuesByDepth {
				if i >= len(d.Steps) || d.Steps[i].Calls-expansionsAt(c.name, i) != want {
					t.Errorf("depth %d stats %+v, want %d value calls", i+1, d.Steps, want)
				}
			}
			if !r.Score.Correct || r.Metrics["top1"] != 1 || r.Metrics["any_at_b"] != 1 {
				t.Errorf("result %+v", r)
			}
		})
	}
}

// expansionsAt is the number of propose calls counted into depth i+1's
// stats in TestToTCallsPerStep (the frontier size before that depth).
func expansionsAt(name string, i int) int {
	if name == "b1" || i == 0 {
		return 1
	}
	return 2
}

func TestToTDuplicates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode string
		want float64 // value of the duplicate "4 * 5" candidate
	}{{"zero", 0}, {"share", 60}} {
		w := newWorld()
		var got []TreeNode
		spec, _ := Lookup("tot")
		v, _ := param.Resolve(spec.Params, map[string]any{"b": 1, "duplicates": c.mode})
		s, _ := spec.New(v)
		env := testEnv(t, w)
		env.Trace = treeCatcher{&got}
		if _, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10")); err != nil {
			t.Fatal(err)
		}
		// Node 3 is the second "4 * 5 = 20" proposal.
		if got[3].Value != c.want || !strings.HasPrefix(got[3].Thought, "4 * 5") {
			t.Errorf("duplicates=%s: node 3 %+v, want value %v", c.mode, got[3], c.want)
		}
		if got[1].Value != 60 {
			t.Errorf("first 4 * 5 valued %v, want 3 × sure = 60", got[1].Value)
		}
	}
}

type treeCatcher struct{ nodes *[]TreeNode }

func (c treeCatcher) Tree(_ context.Context, n []TreeNode) error { *c.nodes = n; return nil }
func (c treeCatcher) Step(context.Context, int, int, string, string) error {
	return nil
}

// TestToTValueCacheScope: value_cache=run declares value draws shared by
// the run (the second, identical puzzle's value calls are answered by the
// first's draws, as hits), item and off do not.
func TestToTValueCacheScope(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scope      string
		wantFirst  int // value calls reaching the model for the first puzzle
		wantSecond int // and for the second, identical one
	}{{"item", 7, 7}, {"run", 7, 0}, {"off", 7, 7}} {
		w := newWorld()
		spec, _ := Lookup("tot")
		v, _ := param.Resolve(spec.Params, map[string]any{"b": 1, "value_cache": c.scope})
		s, _ := spec.New(v)
		shared := llm.Shared()
		hits := &hitCounter{}
		solve := func(index int) {
			p := puzzle(t, "4 5 6 10")
			p.Index = index
			env := testEnv(t, w, hits.middleware, shared)
			env.Seed = int64(100 + index) // another item's seed, as the engine gives it
			if _, err := s.Solve(context.Background(), env, p); err != nil {
				t.Fatal(err)
			}
		}
		solve(0)
		first := w.calls["value"]
		solve(1)
		if first != c.wantFirst || w.calls["value"]-first != c.wantSecond {
			t.Errorf("value_cache=%s: value calls reaching the model %d then %d, want %d then %d",
				c.scope, first, w.calls["value"]-first, c.wantFirst, c.wantSecond)
		}
		if wantHits := c.wantFirst - c.wantSecond; hits.n != wantHits {
			t.Errorf("value_cache=%s: %d shared hits, want %d", c.scope, hits.n, wantHits)
		}
	}
}

// hitCounter counts responses marked as cache hits.
type hitCounter struct {
	mu sync.Mutex
	n  int
}

func (h *hitCounter) middleware(next llm.Sampler) llm.Sampler {
	return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := next.Sample(ctx, req)
		if resp.CacheHit {
			h.mu.Lock()
			h.n++
			h.mu.Unlock()
		}
		return resp, err
	})
}

func TestToTDFSBacktracks(t *testing.T) {
	t.Parallel()
	w := newWorld()
	// The best first step leads to a dead end: "4 20" now only makes 16.
	w.proposals["4 20"] = []string{"20 - 4 = 16 (left: 16)"}
	w.proposals["4 4 5"] = []string{"4 + 4 = 8 (left: 5 8)", "4 * 5 = 20 (left: 4 20)"}
	var nodes []TreeNode
	spec, _ := Lookup("tot")
	v, _ := param.Resolve(spec.Params, map[string]any{"search": "dfs", "threshold": 1.0})
	s, _ := spec.New(v)
	env := testEnv(t, w)
	env.Trace = treeCatcher{&nodes}
	res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	// root → 4*5 (sure) → 10-6 (sure) → 20-4=16 (impossible: pruned, backtrack)
	// → 20-10 (impossible: pruned) → back to 10-6=4 (likely) → 4*5=20 ... dead
	// again → exhausted; nothing solved.
	var visited []string
	for _, n := range nodes {
		if n.Selected && n.Parent >= 0 {
			visited = append(visited, lastLineOf(n.Thought))
		}
	}
	want := []string{"4 * 5 = 20 (left: 6 10 20)", "10 - 6 = 4 (left: 4 4 5)", "10 - 6 = 4 (left: 4 20)", "4 * 5 = 20 (left: 4 20)"}
	if strings.Join(visited, "|") != strings.Join(want, "|") {
		t.Errorf("visited %q\nwant    %q", visited, want)
	}
	pruned := 0
	for _, n := range nodes {
		if n.Pruned {
			pruned++
		}
	}
	if pruned == 0 || res.Score.Correct {
		t.Errorf("pruned %d, result %+v", pruned, res.Score)
	}
}
