package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// MCTS rules.
const (
	// BackupMean: a node's Q is the mean of the returns backed up through it
	// (RAP, LATS). BackupMax: their maximum (RAP's "max" aggregation).
	BackupMean = "mean"
	BackupMax  = "max"
	// FinalMostVisited: the answer is reached from the root by following the
	// most visited child. FinalBestValue: the terminal node with the highest
	// evaluation.
	FinalMostVisited = "most_visited"
	FinalBestValue   = "best_value"
	// RolloutGreedy: a simulation step takes the highest-valued child (LATS).
	// RolloutSample: it draws a child in proportion to value (RAP's
	// simulate_choice with sampling).
	RolloutGreedy = "greedy"
	RolloutSample = "sample"
)

// MCTSOptions configures MCTS.
type MCTSOptions struct {
	Iterations int     // budget of iterations (select, expand, simulate, back up), >= 1
	C          float64 // UCT exploration constant, >= 0
	MaxDepth   int     // nodes at this depth are leaves: never expanded, >= 1
	// RolloutDepth bounds how many levels a simulation may descend below
	// the node it starts from; 0 means down to MaxDepth.
	RolloutDepth int
	Backup       string // BackupMean (default when empty) or BackupMax
	Final        string // FinalMostVisited (default when empty) or FinalBestValue
	Rollout      string // RolloutGreedy (default when empty) or RolloutSample
	// Seed drives RolloutSample: iteration i (0-based) draws from
	// PCG(Seed, i), so a search resumed at iteration i repeats what an
	// uninterrupted one would have done.
	Seed uint64
}

func (o *MCTSOptions) validate() error {
	switch {
	case o.Iterations < 1:
		return fmt.Errorf("%w: Iterations = %d, want >= 1", ErrInvalidOptions, o.Iterations)
	case o.MaxDepth < 1:
		return fmt.Errorf("%w: MaxDepth = %d, want >= 1", ErrInvalidOptions, o.MaxDepth)
	case o.RolloutDepth < 0:
		return fmt.Errorf("%w: RolloutDepth = %d, want >= 0", ErrInvalidOptions, o.RolloutDepth)
	case o.C < 0 || math.IsNaN(o.C) || math.IsInf(o.C, 0):
		return fmt.Errorf("%w: C = %v, want a finite number >= 0", ErrInvalidOptions, o.C)
	}
	for _, f := range []struct{ name, v, a, b string }{
		{"Backup", o.Backup, BackupMean, BackupMax},
		{"Final", o.Final, FinalMostVisited, FinalBestValue},
		{"Rollout", o.Rollout, RolloutGreedy, RolloutSample},
	} {
		if f.v != "" && f.v != f.a && f.v != f.b {
			return fmt.Errorf("%w: unknown %s %q (want %s or %s)", ErrInvalidOptions, f.name, f.v, f.a, f.b)
		}
	}
	return nil
}

// MCTSState is a search in progress: what a caller checkpoints between
// iterations (it encodes as JSON when S does) and hands to ResumeMCTS.
type MCTSState[S any] struct {
	Tree        Tree[S]
	Done        int   // iterations completed
	Expansions  int   // Expand calls so far
	Evaluations int   // Evaluate calls so far
	Expanded    []int // node IDs given to Expand, in call order
	Found       int   // a node Solved reported true for, or -1
}

// Q is a node's backed-up value under the backup rule: the mean or the
// maximum of the returns through it, 0 before any visit.
func Q[S any](n *Node[S], backup string) float64 {
	if n.Visits == 0 {
		return 0
	}
	if backup == BackupMax {
		return n.ReturnMax
	}
	return n.ReturnSum / float64(n.Visits)
}

// UCT is the selection score of child under parent:
//
//	Q(child) + c·sqrt(ln N(parent) / N(child))
//
// and +Inf for a child never visited, so every child is tried once before
// any is tried twice (as in LATS's uct; its sqrt(2·ln N/n) is c = √2).
func UCT[S any](parent, child *Node[S], c float64, backup string) float64 {
	if child.Visits == 0 {
		return math.Inf(1)
	}
	return Q(child, backup) + c*math.Sqrt(math.Log(float64(parent.Visits))/float64(child.Visits))
}

// MCTS runs Monte Carlo tree search from root. Each iteration:
//
//  1. Selection: from the root, while the node has been expanded and has
//     children, descend to the child with the highest UCT; ties go to the
//     child created first (lowest ID), so selection needs no randomness.
//  2. Expansion: a selected leaf that is not terminal, not at MaxDepth and
//     not yet expanded is expanded (one Expand call; the node is marked
//     Selected, meaning "expanded") and its children are scored by one
//     Evaluate call (Node.Value).
//  3. Simulation: from the new children, the rollout policy picks one
//     (greedy: highest Value, lowest ID on ties; sample: in proportion to
//     max(Value, 0), uniform if all are 0), and goes on expanding and
//     evaluating the picked node the same way until it reaches a terminal
//     node, MaxDepth, RolloutDepth levels, or a dead end (no children).
//     The nodes a simulation creates stay in the tree (as in RAP's and
//     LATS's code) and may be selected later.
//  4. Backpropagation: the return is the Value of the last node of the
//     path (its evaluation, e.g. the reward of a finished answer); every
//     node on the path from the root gains a visit, and the return is added
//     to its ReturnSum and ReturnMax.
//
// When a node just created is solved, the path ends there.
// A terminal node that is selected again (every iteration must end
// somewhere) is not expanded: its own Value is backed up again. When
// Problem.Solved reports true for any node created, the search stops after
// that iteration's backup with Result.Found. Expand and Evaluate are called
// from the calling goroutine only, one at a time: MCTS is sequential by
// nature, and the model calls inside one Expand (n samples) are where the
// parallelism is.
//
// The final choice: most_visited descends from the root to the child with
// most visits (ties: higher Q, then lowest ID) while the node has visited
// children; if that ends on a non-terminal node, the best-valued terminal
// node below it, if any, is taken instead. best_value takes the terminal
// node with the highest Value (lowest ID on ties), or, with no terminal
// node, the leaf with the highest Value. A solved node is always Best.
// Result.Final lists every terminal node in creation order.
func MCTS[S any](ctx context.Context, p Problem[S], root S, o MCTSOptions, after func(context.Context, *MCTSState[S]) error) (Result[S], error) {
	st := &MCTSState[S]{Found: -1}
	addNode(&st.Tree, &p, -1, 0, root)
	return ResumeMCTS(ctx, p, st, o, after)
}

// ResumeMCTS continues a search from st (as saved by the after hook of an
// earlier MCTS call) until Iterations iterations are done. after, if not
// nil, is called after every completed iteration with the state to save.
func ResumeMCTS[S any](ctx context.Context, p Problem[S], st *MCTSState[S], o MCTSOptions, after func(context.Context, *MCTSState[S]) error) (Result[S], error) {
	if err := p.validate(); err != nil {
		return Result[S]{Best: -1}, err
	}
	if err := o.validate(); err != nil {
		return Result[S]{Best: -1}, err
	}
	if st == nil || st.Tree.Len() == 0 {
		return Result[S]{Best: -1}, fmt.Errorf("%w: MCTS state has no root", ErrInvalidOptions)
	}
	m := &mctsRun[S]{ctx: ctx, p: &p, o: &o, st: st, kids: make([][]int, st.Tree.Len())}
	for i, n := range st.Tree.Nodes {
		if n == nil || n.ID != i || (i > 0 && (n.Parent < 0 || n.Parent >= i)) {
			return Result[S]{Best: -1}, fmt.Errorf("%w: MCTS state node %d is malformed", ErrInvalidOptions, i)
		}
		if i == 0 {
			continue
		}
		m.kids[n.Parent] = append(m.kids[n.Parent], n.ID)
	}
	for st.Done < o.Iterations && st.Found < 0 {
		if err := ctx.Err(); err != nil {
			return m.result(), fmt.Errorf("search: mcts iteration %d: %w", st.Done+1, err)
		}
		if err := m.iterate(); err != nil {
			return m.result(), fmt.Errorf("search: mcts iteration %d: %w", st.Done+1, err)
		}
		st.Done++
		if after != nil {
			if err := after(ctx, st); err != nil {
				return m.result(), err
			}
		}
	}
	return m.result(), nil
}

type mctsRun[S any] struct {
	ctx context.Context
	p   *Problem[S]
	o   *MCTSOptions
	st  *MCTSState[S]
	// kids indexes the tree's children by parent, in creation order.
	kids [][]int
}

func (m *mctsRun[S]) children(id int) []int { return m.kids[id] }

// leaf reports whether a node is never expanded.
func (m *mctsRun[S]) leaf(n *Node[S]) bool { return n.Terminal || n.Depth >= m.o.MaxDepth }

func (m *mctsRun[S]) iterate() error {
	tree := &m.st.Tree
	rng := rand.New(rand.NewPCG(m.o.Seed, uint64(m.st.Done)))
	// Selection.
	path := []int{0}
	id := 0
	for {
		n := tree.Nodes[id]
		kids := m.children(id)
		if !n.Selected || len(kids) == 0 {
			break
		}
		best, bestU := -1, math.Inf(-1)
		for _, k := range kids {
			if u := UCT(n, tree.Nodes[k], m.o.C, m.o.Backup); best < 0 || u > bestU {
				best, bestU = k, u
			}
		}
		id = best
		path = append(path, id)
	}
	// Expansion and simulation.
	start := tree.Nodes[id].Depth
	for {
		n := tree.Nodes[id]
		if m.leaf(n) || (m.o.RolloutDepth > 0 && n.Depth-start >= m.o.RolloutDepth) {
			break
		}
		if !n.Selected {
			if err := m.expand(id); err != nil {
				return err
			}
			if m.st.Found >= 0 { // a child of id: its value is backed up
				path = append(path, m.st.Found)
				break
			}
		}
		kids := m.children(id)
		if len(kids) == 0 {
			break // dead end
		}
		id = m.pick(kids, rng)
		path = append(path, id)
	}
	// Backpropagation.
	r := tree.Nodes[path[len(path)-1]].Value
	for _, k := range path {
		n := tree.Nodes[k]
		if n.Visits == 0 || r > n.ReturnMax {
			n.ReturnMax = r
		}
		n.Visits++
		n.ReturnSum += r
	}
	return nil
}

// expand expands node id and evaluates its children.
func (m *mctsRun[S]) expand(id int) error {
	tree := &m.st.Tree
	n := tree.Nodes[id]
	m.st.Expansions++
	m.st.Expanded = append(m.st.Expanded, id)
	n.Selected = true
	kids, err := safeExpand(nodeSite(m.ctx, id), m.p, n.State, n.Depth)
	if err != nil {
		return fmt.Errorf("expand node %d (depth %d): %w", id, n.Depth, err)
	}
	if len(kids) == 0 {
		return nil
	}
	ids := make([]int, len(kids))
	parents := make([]S, len(kids))
	for i, s := range kids {
		ids[i] = addNode(tree, m.p, id, n.Depth+1, s).ID
		parents[i] = n.State
		m.kids = append(m.kids, nil)
	}
	m.kids[id] = ids
	m.st.Evaluations++
	vals, err := evaluate(nodeSite(m.ctx, id), m.p, parents, kids, n.Depth+1)
	if err != nil {
		return fmt.Errorf("evaluate children of node %d: %w", id, err)
	}
	for i, c := range ids {
		tree.Nodes[c].Value = vals[i]
	}
	if m.p.Solved != nil {
		for _, c := range ids {
			if m.p.Solved(tree.Nodes[c].State) {
				m.st.Found = c
				break
			}
		}
	}
	return nil
}

// pick chooses the next node of a simulation among kids.
func (m *mctsRun[S]) pick(kids []int, rng *rand.Rand) int {
	tree := &m.st.Tree
	if m.o.Rollout == RolloutSample {
		vals := make([]float64, len(kids))
		for i, k := range kids {
			vals[i] = tree.Nodes[k].Value
			if math.IsInf(vals[i], 1) {
				return k // certain: no need to draw
			}
		}
		if idx, err := selectSample(vals, 1, rng); err == nil {
			return kids[idx[0]]
		}
	}
	best := kids[0]
	for _, k := range kids[1:] {
		if tree.Nodes[k].Value > tree.Nodes[best].Value {
			best = k
		}
	}
	return best
}

func (m *mctsRun[S]) result() Result[S] {
	st := m.st
	res := Result[S]{Tree: st.Tree, Best: -1, Expansions: st.Expansions, Evaluations: st.Evaluations,
		Expanded: st.Expanded, Steps: st.Done, Found: st.Found >= 0}
	tree := &res.Tree
	res.Final = tree.Terminals()
	switch {
	case st.Found >= 0:
		res.Best = st.Found
	case m.o.Final == FinalBestValue:
		res.Best = m.bestTerminal(0)
		if res.Best < 0 {
			for _, n := range tree.Nodes {
				if len(m.children(n.ID)) == 0 && (res.Best < 0 || n.Value > tree.Nodes[res.Best].Value) {
					res.Best = n.ID
				}
			}
		}
	default:
		id := 0
		for {
			next := -1
			for _, k := range m.children(id) {
				c := tree.Nodes[k]
				if c.Visits == 0 {
					continue
				}
				if next < 0 || c.Visits > tree.Nodes[next].Visits ||
					c.Visits == tree.Nodes[next].Visits && Q(c, m.o.Backup) > Q(tree.Nodes[next], m.o.Backup) {
					next = k
				}
			}
			if next < 0 {
				break
			}
			id = next
		}
		res.Best = id
		if !tree.Nodes[id].Terminal {
			if t := m.bestTerminal(id); t >= 0 {
				res.Best = t
			}
		}
	}
	return res
}

// bestTerminal is the highest-valued terminal node in the subtree of id
// (lowest ID on ties), or -1.
func (m *mctsRun[S]) bestTerminal(id int) int {
	tree := &m.st.Tree
	best := -1
	for _, n := range tree.Nodes {
		if !n.Terminal || !m.under(n.ID, id) {
			continue
		}
		if best < 0 || n.Value > tree.Nodes[best].Value {
			best = n.ID
		}
	}
	return best
}

// under reports whether id is anc or one of its descendants.
func (m *mctsRun[S]) under(id, anc int) bool {
	for ; id >= 0; id = m.st.Tree.Nodes[id].Parent {
		if id == anc {
			return true
		}
	}
	return false
}
