package search

import (
	"context"
	"fmt"
	"math"
)

// DFSOptions configures DFS.
type DFSOptions struct {
	Steps    int // depth limit, >= 1: nodes at depth Steps are not expanded
	MaxSteps int // budget of Expand calls, >= 1
	// Threshold: children valued below it are pruned (never visited).
	Threshold float64
	// MaxPerState caps how many children of one node are visited (the
	// reference's max_per_state); 0 means no cap.
	MaxPerState int
}

func (o *DFSOptions) validate() error {
	switch {
	case o.Steps < 1:
		return fmt.Errorf("%w: Steps = %d, want >= 1", ErrInvalidOptions, o.Steps)
	case o.MaxSteps < 1:
		return fmt.Errorf("%w: MaxSteps = %d, want >= 1", ErrInvalidOptions, o.MaxSteps)
	case o.MaxPerState < 0:
		return fmt.Errorf("%w: MaxPerState = %d, want >= 0", ErrInvalidOptions, o.MaxPerState)
	case math.IsNaN(o.Threshold):
		return fmt.Errorf("%w: Threshold is NaN", ErrInvalidOptions)
	}
	return nil
}

// DFS runs the Tree of Thoughts depth-first search from root; see the
// package documentation for the exact semantics.
func DFS[S any](ctx context.Context, p Problem[S], root S, o DFSOptions) (Result[S], error) {
	res := Result[S]{Best: -1}
	if err := p.validate(); err != nil {
		return res, err
	}
	if err := o.validate(); err != nil {
		return res, err
	}
	d := &dfsRun[S]{ctx: ctx, p: &p, o: &o, res: &res}
	addNode(&res.Tree, &p, -1, 0, root)
	err := d.visit(0)
	if !res.Found {
		for _, id := range res.Final {
			if res.Best < 0 || res.Tree.Nodes[id].Value > res.Tree.Nodes[res.Best].Value {
				res.Best = id
			}
		}
	}
	return res, err
}

type dfsRun[S any] struct {
	ctx  context.Context
	p    *Problem[S]
	o    *DFSOptions
	res  *Result[S]
	stop bool
}

func (d *dfsRun[S]) visit(id int) error {
	if err := d.ctx.Err(); err != nil {
		return fmt.Errorf("search: dfs node %d: %w", id, err)
	}
	res, tree := d.res, &d.res.Tree
	n := tree.Nodes[id]
	n.Selected = true
	res.Visited = append(res.Visited, id)
	if n.Terminal {
		res.Final = append(res.Final, id)
	}
	if d.p.Solved != nil && d.p.Solved(n.State) {
		res.Found, res.Best, d.stop = true, id, true
		return nil
	}
	if n.Terminal || n.Depth >= d.o.Steps {
		return nil
	}
	if res.Expansions >= d.o.MaxSteps {
		res.Exhausted, d.stop = true, true
		return nil
	}
	res.Expansions++
	res.Expanded = append(res.Expanded, id)
	states, err := d.p.Expand(nodeSite(d.ctx, id), n.State, n.Depth)
	if err != nil {
		return fmt.Errorf("search: dfs: expand node %d (depth %d): %w", id, n.Depth, err)
	}
	if len(states) == 0 {
		return nil // dead end: backtrack
	}
	ids := make([]int, len(states))
	parents := make([]S, len(states))
	for i, s := range states {
		ids[i] = addNode(tree, d.p, id, n.Depth+1, s).ID
		parents[i] = n.State
	}
	res.Evaluations++
	vals, err := evaluate(nodeSite(d.ctx, id), d.p, parents, states, n.Depth+1)
	if err != nil {
		return fmt.Errorf("search: dfs: evaluate children of node %d: %w", id, err)
	}
	for i, c := range ids {
		tree.Nodes[c].Value = vals[i]
		tree.Nodes[c].Pruned = vals[i] < d.o.Threshold
	}
	for k, c := range byValueDesc(tree, ids) {
		if tree.Nodes[c].Pruned || (d.o.MaxPerState > 0 && k >= d.o.MaxPerState) {
			break
		}
		if err := d.visit(c); err != nil {
			return err
		}
		if d.stop {
			return nil
		}
	}
	return nil
}
