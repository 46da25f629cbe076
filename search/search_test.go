package search

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mem is a plain in-memory thought tree with call recording.
type mem struct {
	kids   map[string][]string
	vals   map[string]float64
	term   map[string]bool
	solved string

	mu            sync.Mutex
	expanded      []string    // Expand calls in call order
	expandByDepth map[int]int // Expand calls per depth of the expanded state
	evalCands     [][]string
	evalParents   [][]string
	evalDepths    []int
}

func (m *mem) problem() Problem[string] {
	return Problem[string]{
		Expand: func(ctx context.Context, s string, depth int) ([]string, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.expanded = append(m.expanded, s)
			if m.expandByDepth == nil {
				m.expandByDepth = map[int]int{}
			}
			m.expandByDepth[depth]++
			return slices.Clone(m.kids[s]), nil
		},
		Evaluate: func(ctx context.Context, parents, cands []string, depth int) ([]float64, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.evalCands = append(m.evalCands, slices.Clone(cands))
			m.evalParents = append(m.evalParents, slices.Clone(parents))
			m.evalDepths = append(m.evalDepths, depth)
			out := make([]float64, len(cands))
			for i, c := range cands {
				out[i] = m.vals[c]
			}
			return out, nil
		},
		IsTerminal: func(s string, _ int) bool { return m.term[s] },
		Solved:     func(s string) bool { return m.solved != "" && s == m.solved },
	}
}

func names(t Tree[string], ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.Nodes[id].State
	}
	return out
}

func allStates(t Tree[string]) []string {
	out := make([]string, t.Len())
	for i, n := range t.Nodes {
		out[i] = n.State
	}
	return out
}

func flagged(t Tree[string], f func(*Node[string]) bool) []string {
	var out []string
	for _, n := range t.Nodes {
		if f(n) {
			out = append(out, n.State)
		}
	}
	return out
}

// bfsTree: a small tree with distinct values.
func bfsTree() *mem {
	return &mem{
		kids: map[string][]string{
			"root": {"a", "b", "c"},
			"a":    {"a1", "a2"},
			"b":    {"b1", "b2"},
			"c":    {"c1"},
			"a1":   {"a1x"},
			"b1":   {"b1x"},
			"b2":   {"b2x", "b2y"},
			"c1":   {"c1x"},
		},
		vals: map[string]float64{
			"a": 0.5, "b": 0.9, "c": 0.7,
			"a1": 0.6, "a2": 0.1, "b1": 0.3, "b2": 0.8, "c1": 0.95,
			"a1x": 0.2, "b1x": 1.0, "b2x": 0.4, "b2y": 0.1, "c1x": 0.5,
		},
	}
}

func TestBFSGreedy(t *testing.T) {
	tests := []struct {
		beam        int
		expanded    []string    // Result.Expanded
		perDepth    map[int]int // Expand calls by depth
		evalCands   [][]string
		final       []string
		stateByID   []string
		expansions  int
		evaluations int
	}{
		{
			beam:        1,
			expanded:    []string{"root", "b", "b2"},
			perDepth:    map[int]int{0: 1, 1: 1, 2: 1},
			evalCands:   [][]string{{"a", "b", "c"}, {"b1", "b2"}, {"b2x", "b2y"}},
			final:       []string{"b2x"},
			stateByID:   []string{"root", "a", "b", "c", "b1", "b2", "b2x", "b2y"},
			expansions:  3,
			evaluations: 3,
		},
		{
			beam:        2,
			expanded:    []string{"root", "b", "c", "c1", "b2"},
			perDepth:    map[int]int{0: 1, 1: 2, 2: 2},
			evalCands:   [][]string{{"a", "b", "c"}, {"b1", "b2", "c1"}, {"c1x", "b2x", "b2y"}},
			final:       []string{"c1x", "b2x"},
			stateByID:   []string{"root", "a", "b", "c", "b1", "b2", "c1", "c1x", "b2x", "b2y"},
			expansions:  5,
			evaluations: 3,
		},
		{
			beam:        3,
			expanded:    []string{"root", "b", "c", "a", "c1", "b2", "a1"},
			perDepth:    map[int]int{0: 1, 1: 3, 2: 3},
			evalCands:   [][]string{{"a", "b", "c"}, {"b1", "b2", "c1", "a1", "a2"}, {"c1x", "b2x", "b2y", "a1x"}},
			final:       []string{"c1x", "b2x", "a1x"},
			stateByID:   []string{"root", "a", "b", "c", "b1", "b2", "c1", "a1", "a2", "c1x", "b2x", "b2y", "a1x"},
			expansions:  7,
			evaluations: 3,
		},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("beam%d", tc.beam), func(t *testing.T) {
			m := bfsTree()
			res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{Steps: 3, Beam: tc.beam, Concurrency: 4})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Tree, res.Expanded); !slices.Equal(got, tc.expanded) {
				t.Errorf("Expanded = %v, want %v", got, tc.expanded)
			}
			for d, n := range tc.perDepth {
				if m.expandByDepth[d] != n {
					t.Errorf("Expand calls at depth %d = %d, want %d", d, m.expandByDepth[d], n)
				}
			}
			if !slices.EqualFunc(m.evalCands, tc.evalCands, slices.Equal) {
				t.Errorf("Evaluate candidates = %v, want %v", m.evalCands, tc.evalCands)
			}
			if !slices.Equal(m.evalDepths, []int{1, 2, 3}) {
				t.Errorf("Evaluate depths = %v", m.evalDepths)
			}
			for i, cands := range m.evalCands {
				for j, c := range cands {
					if want := c[:len(c)-1]; i > 0 && m.evalParents[i][j] != want {
						t.Errorf("parent of %s = %s, want %s", c, m.evalParents[i][j], want)
					}
				}
			}
			if got := names(res.Tree, res.Final); !slices.Equal(got, tc.final) {
				t.Errorf("Final = %v, want %v", got, tc.final)
			}
			if res.Best != res.Final[0] {
				t.Errorf("Best = %d, want %d", res.Best, res.Final[0])
			}
			if got := allStates(res.Tree); !slices.Equal(got, tc.stateByID) {
				t.Errorf("states by ID = %v, want %v", got, tc.stateByID)
			}
			if res.Expansions != tc.expansions || res.Evaluations != tc.evaluations || res.Steps != 3 {
				t.Errorf("Expansions, Evaluations, Steps = %d, %d, %d; want %d, %d, 3",
					res.Expansions, res.Evaluations, res.Steps, tc.expansions, tc.evaluations)
			}
			for _, id := range res.Final {
				if p := res.Tree.Path(id); len(p) != 4 || p[0] != 0 || p[3] != id {
					t.Errorf("Path(%d) = %v", id, p)
				}
			}
		})
	}
}

func TestBFSGreedyTies(t *testing.T) {
	tests := []struct {
		vals []float64
		beam int
		want []string
	}{
		{[]float64{1, 1, 1, 1}, 2, []string{"x0", "x1"}},
		{[]float64{0.5, 1, 0.5, 1}, 3, []string{"x1", "x3", "x0"}},
		{[]float64{2, 1, 2, 1}, 3, []string{"x0", "x2", "x1"}},
		{[]float64{0, 0, 3}, 5, []string{"x2", "x0", "x1"}},
		{[]float64{math.Inf(-1), -1, math.Inf(1)}, 3, []string{"x2", "x1", "x0"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.vals, tc.beam), func(t *testing.T) {
			m := &mem{kids: map[string][]string{}, vals: map[string]float64{}}
			for i, v := range tc.vals {
				x := fmt.Sprintf("x%d", i)
				m.kids["root"] = append(m.kids["root"], x)
				m.vals[x] = v
			}
			res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{Steps: 1, Beam: tc.beam})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Tree, res.Final); !slices.Equal(got, tc.want) {
				t.Errorf("Final = %v, want %v", got, tc.want)
			}
			if got := flagged(res.Tree, func(n *Node[string]) bool { return n.Selected && n.ID != 0 }); len(got) != len(tc.want) {
				t.Errorf("Selected = %v", got)
			}
		})
	}
}

func snapshot(t Tree[string]) string {
	var b strings.Builder
	for _, n := range t.Nodes {
		fmt.Fprintf(&b, "%d<%d@%d %s=%g s%v p%v t%v\n", n.ID, n.Parent, n.Depth, n.State, n.Value, n.Selected, n.Pruned, n.Terminal)
	}
	return b.String()
}

func TestBFSSampleDeterministic(t *testing.T) {
	run := func(seed uint64) (Result[string], error) {
		m := bfsTree()
		return BFS(context.Background(), m.problem(), "root", BFSOptions{
			Steps: 3, Beam: 2, Select: SelectSample, Rand: rand.New(rand.NewPCG(seed, 1)), Concurrency: 3,
		})
	}
	first, err := run(42)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		again, err := run(42)
		if err != nil {
			t.Fatal(err)
		}
		if snapshot(again.Tree) != snapshot(first.Tree) || !slices.Equal(again.Final, first.Final) {
			t.Fatalf("same seed, different result:\n%s\nvs\n%s", snapshot(first.Tree), snapshot(again.Tree))
		}
	}
}

func TestBFSSampleProportional(t *testing.T) {
	const draws = 20000
	tests := []struct {
		name string
		vals map[string]float64
		want map[string]float64 // expected share
	}{
		{"weighted", map[string]float64{"p": 1, "q": 3, "z": 0}, map[string]float64{"p": 0.25, "q": 0.75, "z": 0}},
		{"negative-as-zero", map[string]float64{"p": 2, "q": -5, "z": 2}, map[string]float64{"p": 0.5, "q": 0, "z": 0.5}},
		{"all-zero-uniform", map[string]float64{"p": 0, "q": 0, "z": 0}, map[string]float64{"p": 1.0 / 3, "q": 1.0 / 3, "z": 1.0 / 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &mem{kids: map[string][]string{"root": {"p", "q", "z"}}, vals: tc.vals}
			res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{
				Steps: 1, Beam: draws, Select: SelectSample, Rand: rand.New(rand.NewPCG(7, 7)),
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Final) != draws {
				t.Fatalf("len(Final) = %d, want %d", len(res.Final), draws)
			}
			count := map[string]int{}
			for _, s := range names(res.Tree, res.Final) {
				count[s]++
			}
			for s, share := range tc.want {
				got := float64(count[s]) / draws
				if math.Abs(got-share) > 0.02 || (share == 0 && count[s] != 0) {
					t.Errorf("share of %s = %.4f, want %.4f", s, got, share)
				}
			}
			for i := 1; i < len(res.Final); i++ {
				if res.Tree.Nodes[res.Final[i]].Value > res.Tree.Nodes[res.Final[i-1]].Value {
					t.Fatalf("Final not best first at %d", i)
				}
			}
		})
	}
}

// A node drawn twice fills two frontier slots and is expanded twice.
func TestBFSSampleDuplicates(t *testing.T) {
	m := &mem{
		kids: map[string][]string{"root": {"a"}, "a": {"a1"}},
		vals: map[string]float64{"a": 1, "a1": 1},
	}
	res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{
		Steps: 2, Beam: 3, Select: SelectSample, Rand: rand.New(rand.NewPCG(1, 2)), Concurrency: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.expandByDepth[1] != 3 {
		t.Errorf("Expand calls at depth 1 = %d, want 3", m.expandByDepth[1])
	}
	if got := res.Tree.Children(1); len(got) != 3 {
		t.Errorf("Children(a) = %v, want 3 nodes", got)
	}
	if got := names(res.Tree, res.Final); !slices.Equal(got, []string{"a1", "a1", "a1"}) {
		t.Errorf("Final = %v", got)
	}
}

func TestBFSEarlyStop(t *testing.T) {
	tests := []struct {
		name        string
		kids        map[string][]string
		final       []string
		steps       int
		expansions  int
		evaluations int
	}{
		{"root-without-children", map[string][]string{}, []string{"root"}, 0, 1, 0},
		{"leaves-after-one-step", map[string][]string{"root": {"a", "b"}}, []string{"b", "a"}, 1, 3, 1},
		{"one-dead-end", map[string][]string{"root": {"a", "b"}, "b": {"b1"}}, []string{"b1"}, 2, 4, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &mem{kids: tc.kids, vals: map[string]float64{"a": 0.1, "b": 0.2, "b1": 0.3}}
			res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{Steps: 5, Beam: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Tree, res.Final); !slices.Equal(got, tc.final) {
				t.Errorf("Final = %v, want %v", got, tc.final)
			}
			if res.Steps != tc.steps || res.Expansions != tc.expansions || res.Evaluations != tc.evaluations {
				t.Errorf("Steps, Expansions, Evaluations = %d, %d, %d; want %d, %d, %d",
					res.Steps, res.Expansions, res.Evaluations, tc.steps, tc.expansions, tc.evaluations)
			}
		})
	}
}

func TestBFSTerminal(t *testing.T) {
	kids := map[string][]string{
		"root": {"s", "b"},
		"b":    {"b1", "b2"},
		"b1":   {"b1a"},
		"b2":   {"b2a"},
		"b1a":  {"b1ax"},
		"s":    {"never"},
	}
	tests := []struct {
		name      string
		sval      float64
		beam      int
		final     []string
		terminals []string
	}{
		// s (solved at step 1 of 4) is carried through every step.
		{"carried", 0.9, 2, []string{"s", "b1ax"}, []string{"s"}},
		// Outranked in step 1 it leaves the frontier but stays in the tree.
		{"outranked", 0.45, 1, []string{"b1ax"}, []string{"s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &mem{
				kids: kids,
				vals: map[string]float64{"s": tc.sval, "b": 0.5, "b1": 0.4, "b2": 0.3, "b1a": 0.2, "b2a": 0.1, "b1ax": 0.05},
				term: map[string]bool{"s": true},
			}
			res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{Steps: 4, Beam: tc.beam, Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Tree, res.Final); !slices.Equal(got, tc.final) {
				t.Errorf("Final = %v, want %v", got, tc.final)
			}
			if got := names(res.Tree, res.Tree.Terminals()); !slices.Equal(got, tc.terminals) {
				t.Errorf("Terminals = %v, want %v", got, tc.terminals)
			}
			if slices.Contains(m.expanded, "s") {
				t.Error("terminal node was expanded")
			}
			for i, cands := range m.evalCands {
				if i > 0 && slices.Contains(cands, "s") {
					t.Errorf("terminal node re-evaluated: %v", cands)
				}
			}
			if res.Steps != 4 {
				t.Errorf("Steps = %d, want 4", res.Steps)
			}
		})
	}
}

func TestBFSAllTerminal(t *testing.T) {
	tests := []struct {
		name       string
		kids       map[string][]string
		term       map[string]bool
		final      []string
		expansions int
	}{
		{"terminal-root", map[string][]string{"root": {"a"}}, map[string]bool{"root": true}, []string{"root"}, 0},
		{"terminal-children", map[string][]string{"root": {"a", "b"}}, map[string]bool{"a": true, "b": true}, []string{"b", "a"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &mem{kids: tc.kids, vals: map[string]float64{"a": 1, "b": 2}, term: tc.term}
			res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{Steps: 3, Beam: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Tree, res.Final); !slices.Equal(got, tc.final) || res.Expansions != tc.expansions {
				t.Errorf("Final = %v, Expansions = %d; want %v, %d", got, res.Expansions, tc.final, tc.expansions)
			}
		})
	}
}

func hashValue(s string) float64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return float64(h.Sum64()%1000) / 1000
}

// synth is an implicit tree: each state has `branch` children named
// state.i; values are a hash of the name.
func synth(branch int, sleep time.Duration, inflight, peak *atomic.Int64) Problem[string] {
	return Problem[string]{
		Expand: func(ctx context.Context, s string, depth int) ([]string, error) {
			if inflight != nil {
				n := inflight.Add(1)
				defer inflight.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
			}
			if sleep > 0 {
				time.Sleep(rand.N(sleep))
			}
			out := make([]string, branch)
			for i := range out {
				out[i] = fmt.Sprintf("%s.%d", s, i)
			}
			return out, nil
		},
		Evaluate: func(ctx context.Context, parents, cands []string, depth int) ([]float64, error) {
			out := make([]float64, len(cands))
			for i, c := range cands {
				out[i] = hashValue(c)
			}
			return out, nil
		},
	}
}

func TestBFSDeterministicConcurrent(t *testing.T) {
	for _, sel := range []string{SelectGreedy, SelectSample} {
		t.Run(sel, func(t *testing.T) {
			var want string
			var inflight, peak atomic.Int64
			p := synth(4, 2*time.Millisecond, &inflight, &peak)
			for i := range 50 {
				res, err := BFS(context.Background(), p, "r", BFSOptions{
					Steps: 4, Beam: 10, Select: sel, Rand: rand.New(rand.NewPCG(3, 4)), Concurrency: 8,
				})
				if err != nil {
					t.Fatal(err)
				}
				got := snapshot(res.Tree) + fmt.Sprint(res.Final, res.Expanded)
				if i == 0 {
					want = got
				} else if got != want {
					t.Fatalf("run %d differs from run 0", i)
				}
			}
			if pk := peak.Load(); pk > 8 || pk < 2 {
				t.Errorf("peak concurrent Expand calls = %d, want 2..8", pk)
			}
		})
	}
}

func TestBFSConcurrencyDefault(t *testing.T) {
	var inflight, peak atomic.Int64
	_, err := BFS(context.Background(), synth(5, time.Millisecond, &inflight, &peak), "r", BFSOptions{Steps: 2, Beam: 5})
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 1 {
		t.Errorf("Concurrency 0: peak = %d, want 1", peak.Load())
	}
}

// dfsTree:
//
//	root -> a .6, b .9, c .2, d .6
//	b -> b1 .4, b2 .7;  b2 -> b2x .5;  a -> a1 .8;  d -> d1 .9
func dfsTree() *mem {
	return &mem{
		kids: map[string][]string{
			"root": {"a", "b", "c", "d"},
			"b":    {"b1", "b2"},
			"b2":   {"b2x"},
			"a":    {"a1"},
			"d":    {"d1"},
			"b2x":  {"deep"},
		},
		vals: map[string]float64{
			"a": 0.6, "b": 0.9, "c": 0.2, "d": 0.6,
			"b1": 0.4, "b2": 0.7, "b2x": 0.5, "a1": 0.8, "d1": 0.9, "deep": 1,
		},
	}
}

func TestDFS(t *testing.T) {
	tests := []struct {
		name      string
		opt       DFSOptions
		term      map[string]bool
		solved    string
		visited   []string
		expanded  []string
		pruned    []string
		final     []string
		best      string // "" means -1
		found     bool
		exhausted bool
	}{
		{
			name:     "full-backtracking",
			opt:      DFSOptions{Steps: 3, MaxSteps: 100},
			visited:  []string{"root", "b", "b2", "b2x", "b1", "a", "a1", "d", "d1", "c"},
			expanded: []string{"root", "b", "b2", "b1", "a", "a1", "d", "d1", "c"},
		},
		{
			name:     "threshold-0.5",
			opt:      DFSOptions{Steps: 3, MaxSteps: 100, Threshold: 0.5},
			visited:  []string{"root", "b", "b2", "b2x", "a", "a1", "d", "d1"},
			expanded: []string{"root", "b", "b2", "a", "a1", "d", "d1"},
			pruned:   []string{"c", "b1"},
		},
		{
			name:     "threshold-0.65",
			opt:      DFSOptions{Steps: 3, MaxSteps: 100, Threshold: 0.65},
			visited:  []string{"root", "b", "b2"},
			expanded: []string{"root", "b", "b2"},
			pruned:   []string{"a", "c", "d", "b1", "b2x"},
		},
		{
			name:      "budget",
			opt:       DFSOptions{Steps: 3, MaxSteps: 3},
			visited:   []string{"root", "b", "b2", "b2x", "b1"},
			expanded:  []string{"root", "b", "b2"},
			exhausted: true,
		},
		{
			name:     "depth-1",
			opt:      DFSOptions{Steps: 1, MaxSteps: 100},
			visited:  []string{"root", "b", "a", "d", "c"},
			expanded: []string{"root"},
		},
		{
			name:     "depth-2",
			opt:      DFSOptions{Steps: 2, MaxSteps: 100},
			visited:  []string{"root", "b", "b2", "b1", "a", "a1", "d", "d1", "c"},
			expanded: []string{"root", "b", "a", "d", "c"},
		},
		{
			name:     "depth-4",
			opt:      DFSOptions{Steps: 4, MaxSteps: 100},
			visited:  []string{"root", "b", "b2", "b2x", "deep", "b1", "a", "a1", "d", "d1", "c"},
			expanded: []string{"root", "b", "b2", "b2x", "b1", "a", "a1", "d", "d1", "c"},
		},
		{
			name:     "solved",
			opt:      DFSOptions{Steps: 3, MaxSteps: 100},
			solved:   "a1",
			visited:  []string{"root", "b", "b2", "b2x", "b1", "a", "a1"},
			expanded: []string{"root", "b", "b2", "b1", "a"},
			best:     "a1",
			found:    true,
		},
		{
			name:     "terminals",
			opt:      DFSOptions{Steps: 5, MaxSteps: 100},
			term:     map[string]bool{"b2x": true, "a1": true, "c": true},
			visited:  []string{"root", "b", "b2", "b2x", "b1", "a", "a1", "d", "d1", "c"},
			expanded: []string{"root", "b", "b2", "b1", "a", "d", "d1"},
			final:    []string{"b2x", "a1", "c"},
			best:     "a1",
		},
		{
			name:     "solved-terminal",
			opt:      DFSOptions{Steps: 5, MaxSteps: 100},
			term:     map[string]bool{"b2x": true, "a1": true},
			solved:   "a1",
			visited:  []string{"root", "b", "b2", "b2x", "b1", "a", "a1"},
			expanded: []string{"root", "b", "b2", "b1", "a"},
			final:    []string{"b2x", "a1"},
			best:     "a1",
			found:    true,
		},
		{
			name:     "max-per-state",
			opt:      DFSOptions{Steps: 3, MaxSteps: 100, MaxPerState: 1},
			visited:  []string{"root", "b", "b2", "b2x"},
			expanded: []string{"root", "b", "b2"},
		},
		{
			name:     "solved-root",
			opt:      DFSOptions{Steps: 3, MaxSteps: 100},
			solved:   "root",
			visited:  []string{"root"},
			best:     "root",
			found:    true,
			expanded: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := dfsTree()
			m.term, m.solved = tc.term, tc.solved
			res, err := DFS(context.Background(), m.problem(), "root", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Tree, res.Visited); !slices.Equal(got, tc.visited) {
				t.Errorf("Visited = %v, want %v", got, tc.visited)
			}
			if got := names(res.Tree, res.Expanded); !slices.Equal(got, tc.expanded) || !slices.Equal(m.expanded, got) {
				t.Errorf("Expanded = %v (calls %v), want %v", got, m.expanded, tc.expanded)
			}
			if res.Expansions != len(tc.expanded) {
				t.Errorf("Expansions = %d, want %d", res.Expansions, len(tc.expanded))
			}
			wantPruned := slices.Sorted(slices.Values(tc.pruned))
			if got := slices.Sorted(slices.Values(flagged(res.Tree, func(n *Node[string]) bool { return n.Pruned }))); !slices.Equal(got, wantPruned) {
				t.Errorf("Pruned = %v, want %v", got, wantPruned)
			}
			wantSel := slices.Sorted(slices.Values(tc.visited))
			if got := slices.Sorted(slices.Values(flagged(res.Tree, func(n *Node[string]) bool { return n.Selected }))); !slices.Equal(got, wantSel) {
				t.Errorf("Selected = %v, want %v", got, wantSel)
			}
			for _, n := range res.Tree.Nodes {
				if n.Pruned && n.Selected {
					t.Errorf("%s both pruned and visited", n.State)
				}
				if n.Depth > tc.opt.Steps {
					t.Errorf("%s beyond depth limit", n.State)
				}
			}
			if got := names(res.Tree, res.Final); !slices.Equal(got, tc.final) {
				t.Errorf("Final = %v, want %v", got, tc.final)
			}
			wantBest := -1
			if tc.best != "" {
				wantBest = slices.Index(allStates(res.Tree), tc.best)
			}
			if res.Best != wantBest || res.Found != tc.found || res.Exhausted != tc.exhausted {
				t.Errorf("Best, Found, Exhausted = %d, %v, %v; want %d, %v, %v",
					res.Best, res.Found, res.Exhausted, wantBest, tc.found, tc.exhausted)
			}
			if res.Evaluations != len(m.evalCands) {
				t.Errorf("Evaluations = %d, calls %d", res.Evaluations, len(m.evalCands))
			}
		})
	}
}

func TestDFSEvaluateArgs(t *testing.T) {
	m := dfsTree()
	if _, err := DFS(context.Background(), m.problem(), "root", DFSOptions{Steps: 2, MaxSteps: 2}); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(m.evalCands, [][]string{{"a", "b", "c", "d"}, {"b1", "b2"}}, slices.Equal) ||
		!slices.EqualFunc(m.evalParents, [][]string{{"root", "root", "root", "root"}, {"b", "b"}}, slices.Equal) ||
		!slices.Equal(m.evalDepths, []int{1, 2}) {
		t.Errorf("Evaluate got cands %v parents %v depths %v", m.evalCands, m.evalParents, m.evalDepths)
	}
}

var errBoom = errors.New("boom")

func TestErrors(t *testing.T) {
	type check func(t *testing.T, res Result[string], err error)
	wantErr := func(target error, substrs ...string) check {
		return func(t *testing.T, res Result[string], err error) {
			t.Helper()
			if !errors.Is(err, target) {
				t.Fatalf("err = %v, want %v", err, target)
			}
			for _, s := range substrs {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err %q lacks %q", err, s)
				}
			}
		}
	}
	failExpand := func(p Problem[string], on string) Problem[string] {
		inner := p.Expand
		p.Expand = func(ctx context.Context, s string, d int) ([]string, error) {
			if s == on {
				return nil, errBoom
			}
			return inner(ctx, s, d)
		}
		return p
	}
	failEval := func(p Problem[string], depth int, vals []float64, err error) Problem[string] {
		inner := p.Evaluate
		p.Evaluate = func(ctx context.Context, parents, c []string, d int) ([]float64, error) {
			if d == depth {
				return vals, err
			}
			return inner(ctx, parents, c, d)
		}
		return p
	}
	bfs := func(p Problem[string], o BFSOptions) func() (Result[string], error) {
		return func() (Result[string], error) { return BFS(context.Background(), p, "root", o) }
	}
	dfs := func(p Problem[string]) func() (Result[string], error) {
		return func() (Result[string], error) {
			return DFS(context.Background(), p, "root", DFSOptions{Steps: 3, MaxSteps: 10})
		}
	}
	greedy2 := BFSOptions{Steps: 3, Beam: 2, Concurrency: 2}
	tests := []struct {
		name  string
		run   func() (Result[string], error)
		check []check
	}{
		{"bfs-expand", bfs(failExpand(bfsTree().problem(), "c"), greedy2), []check{
			wantErr(errBoom, "step 2", "expand node 3"),
			func(t *testing.T, res Result[string], _ error) {
				if got := names(res.Tree, res.Final); res.Tree.Len() != 4 || !slices.Equal(got, []string{"b", "c"}) || res.Best != 2 {
					t.Errorf("partial: len %d, Final %v, Best %d", res.Tree.Len(), got, res.Best)
				}
			},
		}},
		{"bfs-expand-panic", bfs(func() Problem[string] {
			p := bfsTree().problem()
			p.Expand = func(context.Context, string, int) ([]string, error) { panic("oops") }
			return p
		}(), greedy2), []check{func(t *testing.T, res Result[string], err error) {
			if err == nil || !strings.Contains(err.Error(), "panicked: oops") {
				t.Errorf("err = %v", err)
			}
		}}},
		{"bfs-evaluate", bfs(failEval(bfsTree().problem(), 2, nil, errBoom), greedy2), []check{
			wantErr(errBoom, "step 2", "evaluate 3 candidates"),
			func(t *testing.T, res Result[string], _ error) {
				if res.Tree.Len() != 7 || res.Steps != 1 {
					t.Errorf("partial tree has %d nodes, Steps %d; want 7, 1", res.Tree.Len(), res.Steps)
				}
			},
		}},
		{"bfs-count", bfs(failEval(bfsTree().problem(), 1, []float64{1}, nil), greedy2), []check{wantErr(ErrBadEvaluation, "1 values for 3")}},
		{"bfs-nan", bfs(failEval(bfsTree().problem(), 1, []float64{1, math.NaN(), 2}, nil), greedy2), []check{wantErr(ErrBadEvaluation, "NaN")}},
		{"bfs-sample-inf", bfs(failEval(bfsTree().problem(), 1, []float64{1, math.Inf(1), 2}, nil),
			BFSOptions{Steps: 2, Beam: 2, Select: SelectSample, Rand: rand.New(rand.NewPCG(1, 1))}), []check{wantErr(ErrBadEvaluation, "Inf")}},
		{"dfs-expand", dfs(failExpand(dfsTree().problem(), "b2")), []check{
			wantErr(errBoom, "expand node 6"),
			func(t *testing.T, res Result[string], _ error) {
				if got := names(res.Tree, res.Visited); !slices.Equal(got, []string{"root", "b", "b2"}) {
					t.Errorf("Visited = %v", got)
				}
			},
		}},
		{"dfs-evaluate", dfs(failEval(dfsTree().problem(), 2, nil, errBoom)), []check{wantErr(errBoom, "evaluate children of node 2")}},
		{"dfs-count", dfs(failEval(dfsTree().problem(), 1, []float64{1, 2, 3, 4, 5}, nil)), []check{wantErr(ErrBadEvaluation)}},
		{"dfs-nan", dfs(failEval(dfsTree().problem(), 1, []float64{1, 2, math.NaN(), 4}, nil)), []check{wantErr(ErrBadEvaluation)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.run()
			for _, c := range tc.check {
				c(t, res, err)
			}
		})
	}
}

func TestValidation(t *testing.T) {
	p := bfsTree().problem()
	noExpand, noEval := p, p
	noExpand.Expand = nil
	noEval.Evaluate = nil
	r := rand.New(rand.NewPCG(1, 1))
	ok := BFSOptions{Steps: 1, Beam: 1}
	okD := DFSOptions{Steps: 1, MaxSteps: 1}
	tests := []struct {
		name string
		run  func() (Result[string], error)
	}{
		{"bfs-steps", func() (Result[string], error) { return BFS(context.Background(), p, "root", BFSOptions{Beam: 1}) }},
		{"bfs-beam", func() (Result[string], error) { return BFS(context.Background(), p, "root", BFSOptions{Steps: 1}) }},
		{"bfs-select", func() (Result[string], error) {
			return BFS(context.Background(), p, "root", BFSOptions{Steps: 1, Beam: 1, Select: "best"})
		}},
		{"bfs-sample-rand", func() (Result[string], error) {
			return BFS(context.Background(), p, "root", BFSOptions{Steps: 1, Beam: 1, Select: SelectSample})
		}},
		{"bfs-concurrency", func() (Result[string], error) {
			return BFS(context.Background(), p, "root", BFSOptions{Steps: 1, Beam: 1, Concurrency: -1, Rand: r})
		}},
		{"bfs-no-expand", func() (Result[string], error) { return BFS(context.Background(), noExpand, "root", ok) }},
		{"bfs-no-evaluate", func() (Result[string], error) { return BFS(context.Background(), noEval, "root", ok) }},
		{"dfs-steps", func() (Result[string], error) { return DFS(context.Background(), p, "root", DFSOptions{MaxSteps: 1}) }},
		{"dfs-maxsteps", func() (Result[string], error) { return DFS(context.Background(), p, "root", DFSOptions{Steps: 1}) }},
		{"dfs-maxperstate", func() (Result[string], error) {
			return DFS(context.Background(), p, "root", DFSOptions{Steps: 1, MaxSteps: 1, MaxPerState: -1})
		}},
		{"dfs-threshold-nan", func() (Result[string], error) {
			return DFS(context.Background(), p, "root", DFSOptions{Steps: 1, MaxSteps: 1, Threshold: math.NaN()})
		}},
		{"dfs-no-expand", func() (Result[string], error) { return DFS(context.Background(), noExpand, "root", okD) }},
		{"dfs-no-evaluate", func() (Result[string], error) { return DFS(context.Background(), noEval, "root", okD) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.run()
			if !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("err = %v, want ErrInvalidOptions", err)
			}
			if res.Tree.Len() != 0 || res.Best != -1 {
				t.Errorf("result not empty: %d nodes, Best %d", res.Tree.Len(), res.Best)
			}
		})
	}
	// The valid variants run.
	if _, err := BFS(context.Background(), p, "root", BFSOptions{Steps: 1, Beam: 1, Select: SelectGreedy}); err != nil {
		t.Error(err)
	}
	if _, err := DFS(context.Background(), p, "root", okD); err != nil {
		t.Error(err)
	}
}

func TestCancellation(t *testing.T) {
	// blocking expands at the given depth until ctx is done, after
	// cancelling it themselves when cancel is non-nil.
	blocking := func(depth int, cancel func()) Problem[string] {
		p := synth(3, 0, nil, nil)
		inner := p.Expand
		p.Expand = func(ctx context.Context, s string, d int) ([]string, error) {
			if d == depth {
				if cancel != nil {
					cancel()
				}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return inner(ctx, s, d)
		}
		return p
	}
	tests := []struct {
		name string
		want error
		run  func() (Result[string], error)
	}{
		{"bfs-before-start", context.Canceled, func() (Result[string], error) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res, err := BFS(ctx, synth(3, 0, nil, nil), "r", BFSOptions{Steps: 3, Beam: 2})
			if res.Expansions != 0 || res.Tree.Len() != 1 || res.Best != 0 {
				t.Errorf("Expansions %d, nodes %d, Best %d", res.Expansions, res.Tree.Len(), res.Best)
			}
			return res, err
		}},
		{"bfs-during-expand", context.Canceled, func() (Result[string], error) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			return BFS(ctx, blocking(2, cancel), "r", BFSOptions{Steps: 5, Beam: 3, Concurrency: 2})
		}},
		{"bfs-deadline", context.DeadlineExceeded, func() (Result[string], error) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			return BFS(ctx, blocking(1, nil), "r", BFSOptions{Steps: 5, Beam: 3, Concurrency: 8})
		}},
		{"dfs-during-evaluate", context.Canceled, func() (Result[string], error) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := synth(3, 0, nil, nil)
			inner, n := p.Evaluate, 0
			p.Evaluate = func(ctx context.Context, parents, c []string, d int) ([]float64, error) {
				if n++; n == 3 {
					cancel()
				}
				return inner(ctx, parents, c, d)
			}
			res, err := DFS(ctx, p, "r", DFSOptions{Steps: 1000, MaxSteps: 1000000})
			if res.Expansions != 3 {
				t.Errorf("Expansions = %d, want 3", res.Expansions)
			}
			return res, err
		}},
		{"dfs-during-expand", context.DeadlineExceeded, func() (Result[string], error) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			return DFS(ctx, blocking(4, nil), "r", DFSOptions{Steps: 10, MaxSteps: 100})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := tc.run()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestTreeHelpers(t *testing.T) {
	m := bfsTree()
	res, err := BFS(context.Background(), m.problem(), "root", BFSOptions{Steps: 2, Beam: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Tree
	if got := names(tr, tr.Children(0)); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Children(0) = %v", got)
	}
	if got := tr.Children(1); got != nil {
		t.Errorf("Children(a) = %v", got)
	}
	if got := tr.States(res.Best); !slices.Equal(got, []string{"root", "b", "b2"}) {
		t.Errorf("States(Best) = %v", got)
	}
	if tr.Path(-1) != nil || tr.Path(99) != nil || tr.Node(99) != nil {
		t.Error("unknown IDs should give nil")
	}
	if tr.Nodes[0].Parent != -1 || tr.Nodes[0].Depth != 0 || !tr.Nodes[0].Selected {
		t.Errorf("root = %+v", *tr.Nodes[0])
	}
}

func BenchmarkBFS(b *testing.B) {
	// depth 4, branching 10, beam 5; states are path numbers.
	p := Problem[uint64]{
		Expand: func(_ context.Context, s uint64, _ int) ([]uint64, error) {
			out := make([]uint64, 10)
			for i := range out {
				out[i] = s*10 + uint64(i) + 1
			}
			return out, nil
		},
		Evaluate: func(_ context.Context, _ []uint64, cands []uint64, _ int) ([]float64, error) {
			out := make([]float64, len(cands))
			for i, c := range cands {
				out[i] = float64((c * 0x9E3779B97F4A7C15) >> 11)
			}
			return out, nil
		},
	}
	o := BFSOptions{Steps: 4, Beam: 5, Concurrency: 4}
	b.ReportAllocs()
	for b.Loop() {
		res, err := BFS(context.Background(), p, 0, o)
		if err != nil || len(res.Final) != 5 {
			b.Fatal(err, len(res.Final))
		}
	}
}
