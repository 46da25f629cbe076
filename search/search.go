package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Errors reported by the searches; test with errors.Is.
var (
	// ErrInvalidOptions reports a bad option or an incomplete Problem.
	ErrInvalidOptions = errors.New("search: invalid options")
	// ErrBadEvaluation reports an Evaluate result of the wrong length or
	// containing a NaN (or, when sampling, +Inf).
	ErrBadEvaluation = errors.New("search: bad evaluation")
)

// Node is one thought state in the search tree.
type Node[S any] struct {
	ID       int // index in Tree.Nodes; 0 is the root
	Parent   int // -1 for the root
	Depth    int // root is 0
	State    S
	Value    float64 // from Evaluate; the root is never evaluated and has 0
	Selected bool    // BFS: chosen into a frontier (the root is); DFS: visited
	Pruned   bool    // DFS: value below Threshold, never visited
	Terminal bool    // Problem.IsTerminal(State, Depth) when created
	// MCTS only: how often an iteration's path went through the node, and
	// the sum and maximum of the returns backed up through it.
	Visits    int
	ReturnSum float64
	ReturnMax float64
}

// Tree holds every node created by a search, indexed by ID.
type Tree[S any] struct {
	Nodes []*Node[S]
}

// Len is the number of nodes.
func (t Tree[S]) Len() int { return len(t.Nodes) }

// Node returns the node with the given ID, or nil if there is none.
func (t Tree[S]) Node(id int) *Node[S] {
	if id < 0 || id >= len(t.Nodes) {
		return nil
	}
	return t.Nodes[id]
}

// Children returns the IDs of id's children in creation order.
func (t Tree[S]) Children(id int) []int {
	var out []int
	for _, n := range t.Nodes {
		if n.Parent == id && n.ID != id {
			out = append(out, n.ID)
		}
	}
	return out
}

// Path returns the IDs from the root to id inclusive, or nil for an
// unknown id.
func (t Tree[S]) Path(id int) []int {
	if t.Node(id) == nil {
		return nil
	}
	var out []int
	for ; id >= 0; id = t.Nodes[id].Parent {
		out = append(out, id)
	}
	slices.Reverse(out)
	return out
}

// States returns the states along Path(id).
func (t Tree[S]) States(id int) []S {
	p := t.Path(id)
	out := make([]S, len(p))
	for i, n := range p {
		out[i] = t.Nodes[n].State
	}
	return out
}

// Terminals returns the IDs of all terminal nodes in creation order.
func (t Tree[S]) Terminals() []int {
	var out []int
	for _, n := range t.Nodes {
		if n.Terminal {
			out = append(out, n.ID)
		}
	}
	return out
}

// Problem is what a search needs from the caller. Expand and Evaluate may
// be called from other goroutines than the caller's (BFS expands
// concurrently), but never Evaluate concurrently with itself.
type Problem[S any] struct {
	// Expand proposes the children of state, which sits at depth. Under BFS
	// it may run concurrently for different frontier entries (possibly the
	// same state twice when sampling).
	Expand func(ctx context.Context, state S, depth int) ([]S, error)
	// Evaluate scores candidates (all at depth); parents[i] is the state of
	// candidates[i]'s parent. It must return one value per candidate;
	// higher is better.
	Evaluate func(ctx context.Context, parents []S, candidates []S, depth int) ([]float64, error)
	// IsTerminal reports whether a state must not be expanded further.
	// nil means never.
	IsTerminal func(state S, depth int) bool
	// Solved stops DFS at the first visited state for which it is true.
	// nil means never. BFS ignores it.
	Solved func(state S) bool
}

// Result is what a search returns, also (partially filled) on error.
type Result[S any] struct {
	Tree Tree[S]
	// Final: BFS, the final frontier ordered best first by value (stable
	// in frontier order; may repeat an ID when sampling); DFS, the terminal
	// nodes visited, in visit order.
	Final []int
	// Best is the node the search ranks best. BFS: Final[0]. DFS: the
	// solved node if Found, else the highest-valued node in Final (first
	// visited on ties), else -1.
	Best int
	// Expansions counts Expand calls made; Evaluations counts Evaluate
	// calls made.
	Expansions  int
	Evaluations int
	// Expanded lists the node IDs given to Expand: BFS step by step in
	// frontier order (completed steps only), DFS in call order.
	Expanded []int
	// Visited is the DFS visit order (root first); nil for BFS.
	Visited []int
	// Steps is the number of BFS steps that selected a new frontier.
	Steps int
	// Found: DFS stopped because Solved reported true.
	Found bool
	// Exhausted: DFS stopped because the MaxSteps budget was spent.
	Exhausted bool
}

func (p *Problem[S]) validate() error {
	if p.Expand == nil {
		return fmt.Errorf("%w: Problem.Expand is nil", ErrInvalidOptions)
	}
	if p.Evaluate == nil {
		return fmt.Errorf("%w: Problem.Evaluate is nil", ErrInvalidOptions)
	}
	return nil
}

func (p *Problem[S]) terminal(s S, depth int) bool {
	return p.IsTerminal != nil && p.IsTerminal(s, depth)
}

func addNode[S any](t *Tree[S], p *Problem[S], parent, depth int, s S) *Node[S] {
	n := &Node[S]{
		ID:       len(t.Nodes),
		Parent:   parent,
		Depth:    depth,
		State:    s,
		Terminal: p.terminal(s, depth),
	}
	t.Nodes = append(t.Nodes, n)
	return n
}

// evaluate calls p.Evaluate and checks its answer.
func evaluate[S any](ctx context.Context, p *Problem[S], parents, cands []S, depth int) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	vals, err := p.Evaluate(ctx, parents, cands, depth)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(cands) {
		return nil, fmt.Errorf("%w: %d values for %d candidates", ErrBadEvaluation, len(vals), len(cands))
	}
	for i, v := range vals {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%w: value %d is NaN", ErrBadEvaluation, i)
		}
	}
	return vals, nil
}

// byValueDesc returns ids stably sorted by node value, highest first.
func byValueDesc[S any](t *Tree[S], ids []int) []int {
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Compare(t.Nodes[b].Value, t.Nodes[a].Value)
	})
	return out
}
