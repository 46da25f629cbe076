package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"strings"
	"testing"
)

// digits is a synthetic problem: states are digit strings, each state has
// `branch` children (append 0..branch-1), states of length depth are
// terminal, and values come from the value function.
func digits(branch, depth int, value func(s string) float64) Problem[string] {
	return Problem[string]{
		Expand: func(_ context.Context, s string, _ int) ([]string, error) {
			out := make([]string, branch)
			for i := range out {
				out[i] = s + fmt.Sprint(i)
			}
			return out, nil
		},
		Evaluate: func(_ context.Context, _, cands []string, _ int) ([]float64, error) {
			out := make([]float64, len(cands))
			for i, c := range cands {
				out[i] = value(c)
			}
			return out, nil
		},
		IsTerminal: func(s string, _ int) bool { return len(s) >= depth },
	}
}

// noise is a deterministic pseudo-random number in [0, 0.3) for s.
func noise(s string) float64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return float64(h.Sum32()%1000) / 1000 * 0.3
}

func TestUCTByHand(t *testing.T) {
	// Three nodes: a root visited 3 times with children A (2 visits,
	// returns 0.2 and 0.8) and B (1 visit, return 0.9). With c = 1:
	//   ln 3 = 1.098612
	//   UCT(A) = 1.0/2 + sqrt(1.098612/2) = 0.5 + 0.741152 = 1.241152
	//   UCT(B) = 0.9/1 + sqrt(1.098612/1) = 0.9 + 1.048147 = 1.948147
	// With max backup, Q(A) = 0.8: UCT(A) = 0.8 + 0.741152 = 1.541152.
	root := &Node[string]{Visits: 3, ReturnSum: 1.9, ReturnMax: 0.9}
	a := &Node[string]{Visits: 2, ReturnSum: 1.0, ReturnMax: 0.8}
	b := &Node[string]{Visits: 1, ReturnSum: 0.9, ReturnMax: 0.9}
	for _, tc := range []struct {
		name   string
		child  *Node[string]
		backup string
		want   float64
	}{
		{"A mean", a, BackupMean, 1.241152},
		{"B mean", b, BackupMean, 1.948147},
		{"A max", a, BackupMax, 1.541152},
		{"unvisited", &Node[string]{}, BackupMean, math.Inf(1)},
	} {
		if got := UCT(root, tc.child, 1, tc.backup); math.Abs(got-tc.want) > 1e-6 && !(math.IsInf(got, 1) && math.IsInf(tc.want, 1)) {
			t.Errorf("%s: UCT = %.6f, want %.6f", tc.name, got, tc.want)
		}
	}
}

func TestMCTSThreeNodes(t *testing.T) {
	// The root expands to two terminal children valued A=0.2, B=0.9; c=1.
	// Iteration 1: expand the root; the greedy rollout takes B: return 0.9.
	// Iteration 2: A is unvisited (UCT +Inf): return 0.2.
	// Iteration 3: UCT(A) = 0.2 + sqrt(ln 2/1) = 0.2 + 0.832555 = 1.032555,
	//              UCT(B) = 0.9 + 0.832555 = 1.732555: B again, return 0.9.
	// Visits: root 3, A 1, B 2; root's mean Q = (0.9+0.2+0.9)/3 = 0.666667.
	vals := map[string]float64{"A": 0.2, "B": 0.9}
	p := Problem[string]{
		Expand: func(_ context.Context, s string, _ int) ([]string, error) { return []string{"A", "B"}, nil },
		Evaluate: func(_ context.Context, _, c []string, _ int) ([]float64, error) {
			out := make([]float64, len(c))
			for i, s := range c {
				out[i] = vals[s]
			}
			return out, nil
		},
		IsTerminal: func(s string, _ int) bool { return s != "" },
	}
	res, err := MCTS(context.Background(), p, "", MCTSOptions{Iterations: 3, C: 1, MaxDepth: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	visits := []int{res.Tree.Nodes[0].Visits, res.Tree.Nodes[1].Visits, res.Tree.Nodes[2].Visits}
	if !reflect.DeepEqual(visits, []int{3, 1, 2}) {
		t.Errorf("visits root, A, B = %v, want [3 1 2]", visits)
	}
	if q := Q(res.Tree.Nodes[0], BackupMean); math.Abs(q-0.666667) > 1e-6 {
		t.Errorf("Q(root) = %.6f, want 0.666667", q)
	}
	if q := Q(res.Tree.Nodes[0], BackupMax); q != 0.9 {
		t.Errorf("max Q(root) = %v, want 0.9", q)
	}
	if res.Expansions != 1 || res.Evaluations != 1 {
		t.Errorf("expansions %d evaluations %d, want 1 and 1 (terminals are never expanded)", res.Expansions, res.Evaluations)
	}
	if res.Best != 2 {
		t.Errorf("Best = %d, want 2 (B, most visited)", res.Best)
	}
	if !reflect.DeepEqual(res.Final, []int{1, 2}) {
		t.Errorf("Final = %v, want both terminals", res.Final)
	}
}

// deceptive: the first step "0" looks best (0.9) but every answer under it
// is poor; the optimum "212" (1.0) sits under the worst-looking step.
func deceptive(s string) float64 {
	switch {
	case s == "212":
		return 1
	case len(s) == 3:
		return noise(s)
	case strings.HasPrefix(s, "0"):
		return 0.9
	case strings.HasPrefix(s, "2"):
		return 0.1
	}
	return 0.5
}

func TestMCTSFindsOptimum(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    MCTSOptions
	}{
		{"mean best_value", MCTSOptions{Iterations: 60, C: 1, MaxDepth: 3, Final: FinalBestValue}},
		{"mean most_visited", MCTSOptions{Iterations: 200, C: 1, MaxDepth: 3}},
		{"max most_visited", MCTSOptions{Iterations: 200, C: 0.5, MaxDepth: 3, Backup: BackupMax}},
		{"sample rollouts", MCTSOptions{Iterations: 200, C: 1, MaxDepth: 3, Rollout: RolloutSample, Seed: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := MCTS(context.Background(), digits(3, 3, deceptive), "", tc.o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Tree.Nodes[res.Best].State; got != "212" {
				t.Errorf("best = %q (value %.3f), want the optimum 212", got, res.Tree.Nodes[res.Best].Value)
			}
			if res.Steps != tc.o.Iterations {
				t.Errorf("ran %d iterations, want %d", res.Steps, tc.o.Iterations)
			}
		})
	}
	// Greedy descent by value (what a beam of 1 does) misses it.
	res, err := BFS(context.Background(), digits(3, 3, deceptive), "", BFSOptions{Steps: 3, Beam: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tree.Nodes[res.Best].State == "212" {
		t.Fatal("the deceptive problem is not deceptive: greedy BFS found the optimum")
	}
}

func TestMCTSSolvedStops(t *testing.T) {
	p := digits(3, 3, deceptive)
	p.Solved = func(s string) bool { return deceptive(s) == 1 }
	res, err := MCTS(context.Background(), p, "", MCTSOptions{Iterations: 500, C: 1, MaxDepth: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Tree.Nodes[res.Best].State != "212" {
		t.Fatalf("found %v best %q, want the optimum found", res.Found, res.Tree.Nodes[res.Best].State)
	}
	if res.Steps >= 500 {
		t.Errorf("ran all %d iterations after solving", res.Steps)
	}
}

// treeSig summarises a tree for comparisons.
func treeSig(tr Tree[string]) string {
	var b strings.Builder
	for _, n := range tr.Nodes {
		fmt.Fprintf(&b, "%d:%d:%s:%d:%.6f:%v;", n.ID, n.Parent, n.State, n.Visits, n.ReturnSum, n.Selected)
	}
	return b.String()
}

func TestMCTSReproducible(t *testing.T) {
	run := func(seed uint64) string {
		o := MCTSOptions{Iterations: 40, C: 1.4, MaxDepth: 4, Rollout: RolloutSample, Seed: seed}
		res, err := MCTS(context.Background(), digits(3, 4, func(s string) float64 { return noise(s) + 0.1 }), "", o, nil)
		if err != nil {
			t.Fatal(err)
		}
		return treeSig(res.Tree) + fmt.Sprint(res.Best)
	}
	a, b := run(1), run(1)
	if a != b {
		t.Fatal("two runs with seed 1 differ")
	}
	if run(2) == a {
		t.Error("seeds 1 and 2 give the same tree: the seed is not used")
	}
}

func TestMCTSResume(t *testing.T) {
	p := digits(3, 4, func(s string) float64 { return noise(s) + 0.1 })
	o := MCTSOptions{Iterations: 30, C: 1, MaxDepth: 4, Rollout: RolloutSample, Seed: 3}
	full, err := MCTS(context.Background(), p, "", o, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Stop after 12 iterations, keeping the JSON checkpoint.
	var saved []byte
	stop := errors.New("killed")
	_, err = MCTS(context.Background(), p, "", o, func(_ context.Context, st *MCTSState[string]) error {
		var e error
		if saved, e = json.Marshal(st); e != nil {
			return e
		}
		if st.Done == 12 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the hook's error", err)
	}
	var st MCTSState[string]
	if err := json.Unmarshal(saved, &st); err != nil {
		t.Fatal(err)
	}
	resumed, err := ResumeMCTS(context.Background(), p, &st, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if treeSig(resumed.Tree) != treeSig(full.Tree) || resumed.Best != full.Best || resumed.Expansions != full.Expansions {
		t.Error("a search resumed after 12 iterations differs from an uninterrupted one")
	}
}

func TestMCTSDeadEndsAndErrors(t *testing.T) {
	// The root has no children: every iteration backs up the root's 0.
	p := Problem[string]{
		Expand:   func(context.Context, string, int) ([]string, error) { return nil, nil },
		Evaluate: func(context.Context, []string, []string, int) ([]float64, error) { return nil, nil },
	}
	res, err := MCTS(context.Background(), p, "", MCTSOptions{Iterations: 3, C: 1, MaxDepth: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tree.Len() != 1 || res.Tree.Nodes[0].Visits != 3 || res.Expansions != 1 || res.Best != 0 {
		t.Errorf("dead root: %d nodes, %d visits, %d expansions, best %d", res.Tree.Len(), res.Tree.Nodes[0].Visits, res.Expansions, res.Best)
	}
	// Evaluate answering with the wrong length, or NaN.
	bad := digits(2, 2, func(string) float64 { return math.NaN() })
	if _, err := MCTS(context.Background(), bad, "", MCTSOptions{Iterations: 2, MaxDepth: 2}, nil); !errors.Is(err, ErrBadEvaluation) {
		t.Errorf("NaN values: err = %v", err)
	}
	// A panicking Expand is an error, not a crash.
	boom := digits(2, 2, noise)
	boom.Expand = func(context.Context, string, int) ([]string, error) { panic("boom") }
	if _, err := MCTS(context.Background(), boom, "", MCTSOptions{Iterations: 2, MaxDepth: 2}, nil); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panic: err = %v", err)
	}
	// Cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MCTS(ctx, digits(2, 2, noise), "", MCTSOptions{Iterations: 2, MaxDepth: 2}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestMCTSOptionsInvalid(t *testing.T) {
	p := digits(2, 2, noise)
	for _, o := range []MCTSOptions{
		{Iterations: 0, MaxDepth: 1},
		{Iterations: 1, MaxDepth: 0},
		{Iterations: 1, MaxDepth: 1, C: -1},
		{Iterations: 1, MaxDepth: 1, C: math.NaN()},
		{Iterations: 1, MaxDepth: 1, RolloutDepth: -1},
		{Iterations: 1, MaxDepth: 1, Backup: "median"},
		{Iterations: 1, MaxDepth: 1, Final: "last"},
		{Iterations: 1, MaxDepth: 1, Rollout: "random"},
	} {
		if _, err := MCTS(context.Background(), p, "", o, nil); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: err = %v, want ErrInvalidOptions", o, err)
		}
	}
	bad := &MCTSState[string]{Tree: Tree[string]{Nodes: []*Node[string]{{ID: 0, Parent: -1}, {ID: 1, Parent: 5}}}}
	if _, err := ResumeMCTS(context.Background(), p, bad, MCTSOptions{Iterations: 1, MaxDepth: 1}, nil); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("malformed state: err = %v", err)
	}
}

func TestMCTSRolloutDepth(t *testing.T) {
	// With RolloutDepth 1 a simulation stops one level below where it
	// started, so the first iteration creates only the root's children.
	res, err := MCTS(context.Background(), digits(2, 4, noise), "", MCTSOptions{Iterations: 1, C: 1, MaxDepth: 4, RolloutDepth: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tree.Len() != 3 {
		t.Errorf("%d nodes after one iteration with RolloutDepth 1, want 3", res.Tree.Len())
	}
	res, err = MCTS(context.Background(), digits(2, 4, noise), "", MCTSOptions{Iterations: 1, C: 1, MaxDepth: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tree.Len() != 9 {
		t.Errorf("%d nodes after one full rollout to depth 4, want 9", res.Tree.Len())
	}
}

func BenchmarkMCTS(b *testing.B) {
	p := digits(5, 6, func(s string) float64 { return noise(s) })
	o := MCTSOptions{Iterations: 200, C: 1, MaxDepth: 6, Rollout: RolloutSample, Seed: 1}
	for b.Loop() {
		if _, err := MCTS(context.Background(), p, "", o, nil); err != nil {
			b.Fatal(err)
		}
	}
}
