package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// Selection methods for BFSOptions.Select.
const (
	SelectGreedy = "greedy"
	SelectSample = "sample"
)

// BFSOptions configures BFS.
type BFSOptions struct {
	Steps int // number of expand/evaluate/select rounds, >= 1
	Beam  int // frontier size B, >= 1
	// Select is SelectGreedy (also the default when empty) or SelectSample.
	Select string
	// Rand drives SelectSample; required for it, unused by greedy. It is
	// only used from the calling goroutine.
	Rand *rand.Rand
	// Concurrency bounds the goroutines expanding a frontier; 0 means 1.
	Concurrency int
}

func (o *BFSOptions) validate() error {
	switch {
	case o.Steps < 1:
		return fmt.Errorf("%w: Steps = %d, want >= 1", ErrInvalidOptions, o.Steps)
	case o.Beam < 1:
		return fmt.Errorf("%w: Beam = %d, want >= 1", ErrInvalidOptions, o.Beam)
	case o.Concurrency < 0:
		return fmt.Errorf("%w: Concurrency = %d, want >= 0", ErrInvalidOptions, o.Concurrency)
	}
	switch o.Select {
	case "", SelectGreedy:
	case SelectSample:
		if o.Rand == nil {
			return fmt.Errorf("%w: Select %q needs Rand", ErrInvalidOptions, o.Select)
		}
	default:
		return fmt.Errorf("%w: unknown Select %q", ErrInvalidOptions, o.Select)
	}
	return nil
}

// BFS runs the Tree of Thoughts breadth-first (beam) search from root; see
// the package documentation for the exact semantics.
func BFS[S any](ctx context.Context, p Problem[S], root S, o BFSOptions) (Result[S], error) {
	res := Result[S]{Best: -1}
	if err := p.validate(); err != nil {
		return res, err
	}
	if err := o.validate(); err != nil {
		return res, err
	}
	tree := &res.Tree
	addNode(tree, &p, -1, 0, root).Selected = true
	frontier := []int{0}

	finish := func(err error) (Result[S], error) {
		res.Final = byValueDesc(tree, frontier)
		res.Best = res.Final[0]
		return res, err
	}

	for t := 1; t <= o.Steps; t++ {
		if err := ctx.Err(); err != nil {
			return finish(fmt.Errorf("search: bfs step %d: %w", t, err))
		}
		var toExpand []int
		for _, id := range frontier {
			if !tree.Nodes[id].Terminal {
				toExpand = append(toExpand, id)
			}
		}
		if len(toExpand) == 0 {
			break // everything left is terminal
		}
		kids, calls, failed, err := expandAll(ctx, &p, tree, toExpand, t, max(o.Concurrency, 1))
		res.Expansions += calls
		if err != nil {
			if failed >= 0 {
				return finish(fmt.Errorf("search: bfs step %d: expand node %d: %w", t, toExpand[failed], err))
			}
			return finish(fmt.Errorf("search: bfs step %d: %w", t, err))
		}
		res.Expanded = append(res.Expanded, toExpand...)

		// Gather candidates deterministically: frontier order, child order.
		var cands, fresh []int
		var parents, states []S
		k := 0
		for _, id := range frontier {
			n := tree.Nodes[id]
			if n.Terminal {
				cands = append(cands, id)
				continue
			}
			for _, s := range kids[k] {
				c := addNode(tree, &p, id, t, s)
				cands = append(cands, c.ID)
				fresh = append(fresh, c.ID)
				parents = append(parents, n.State)
				states = append(states, s)
			}
			k++
		}
		if len(fresh) == 0 {
			break // no children anywhere: keep the frontier
		}

		res.Evaluations++
		vals, err := evaluate(WithSite(ctx, fmt.Sprintf("s%d", t)), &p, parents, states, t)
		if err != nil {
			return finish(fmt.Errorf("search: bfs step %d: evaluate %d candidates: %w", t, len(fresh), err))
		}
		for i, id := range fresh {
			tree.Nodes[id].Value = vals[i]
		}
		cvals := make([]float64, len(cands))
		for i, id := range cands {
			cvals[i] = tree.Nodes[id].Value
		}
		var picks []int
		if o.Select == SelectSample {
			picks, err = selectSample(cvals, o.Beam, o.Rand)
			if err != nil {
				return finish(fmt.Errorf("search: bfs step %d: %w", t, err))
			}
		} else {
			picks = selectGreedy(cvals, o.Beam)
		}
		next := make([]int, len(picks))
		for i, j := range picks {
			next[i] = cands[j]
			tree.Nodes[cands[j]].Selected = true
		}
		frontier = next
		res.Steps = t
	}
	return finish(nil)
}

// expandAll expands the nodes ids with at most conc goroutines. kids[i]
// belongs to ids[i]. On failure it returns the index of the first failing
// call observed (or -1 for a cancelled parent context) and its error;
// the remaining calls are cancelled.
func expandAll[S any](ctx context.Context, p *Problem[S], t *Tree[S], ids []int, step, conc int) (kids [][]S, calls, failed int, err error) {
	n := len(ids)
	kids = make([][]S, n)
	inner, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		next   atomic.Int64
		ncalls atomic.Int64
		mu     sync.Mutex
		wg     sync.WaitGroup
	)
	failed = -1
	fail := func(i int, e error) {
		mu.Lock()
		if err == nil {
			err, failed = e, i
		}
		mu.Unlock()
		cancel()
	}
	for range min(conc, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || inner.Err() != nil {
					return
				}
				ncalls.Add(1)
				node := t.Nodes[ids[i]] // read-only while workers run
				ks, e := safeExpand(WithSite(inner, fmt.Sprintf("s%d/f%d", step, i)), p, node.State, node.Depth)
				if e != nil {
					fail(i, e)
					return
				}
				kids[i] = ks
			}
		})
	}
	wg.Wait()
	calls = int(ncalls.Load())
	if e := ctx.Err(); e != nil {
		return nil, calls, -1, e
	}
	if err != nil {
		return nil, calls, failed, err
	}
	return kids, calls, -1, nil
}

// safeExpand turns a panic in Expand (on a worker goroutine, where the
// caller could not recover it) into an error.
func safeExpand[S any](ctx context.Context, p *Problem[S], s S, depth int) (ks []S, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("search: Expand panicked: %v", r)
		}
	}()
	return p.Expand(ctx, s, depth)
}

// selectGreedy returns the indices of the b highest values, highest first;
// ties keep index order.
func selectGreedy(vals []float64, b int) []int {
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		switch {
		case vals[x] > vals[y]:
			return -1
		case vals[x] < vals[y]:
			return 1
		}
		return 0
	})
	return idx[:min(b, len(idx))]
}

// selectSample draws b indices with replacement, with probability
// proportional to max(value, 0); uniformly if all weights are 0.
func selectSample(vals []float64, b int, r *rand.Rand) ([]int, error) {
	cum := make([]float64, len(vals))
	total := 0.0
	for i, v := range vals {
		if math.IsInf(v, 1) {
			return nil, fmt.Errorf("%w: value %d is +Inf, cannot sample", ErrBadEvaluation, i)
		}
		total += max(v, 0)
		cum[i] = total
	}
	if math.IsInf(total, 1) {
		return nil, fmt.Errorf("%w: values sum to +Inf, cannot sample", ErrBadEvaluation)
	}
	out := make([]int, b)
	for k := range out {
		if total == 0 {
			out[k] = r.IntN(len(vals))
			continue
		}
		u := r.Float64() * total
		i, _ := slices.BinarySearchFunc(cum, u, func(c, u float64) int {
			if c <= u {
				return -1
			}
			return 1
		})
		// i is the first index with cum > u, so its weight is positive;
		// rounding could push it past the end.
		if i >= len(vals) {
			i = len(vals) - 1
			for vals[i] <= 0 {
				i--
			}
		}
		out[k] = i
	}
	return out, nil
}
