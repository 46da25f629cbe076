package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// siteLog records the site every callback ran at.
type siteLog struct {
	mu     sync.Mutex
	expand map[string]string // state -> site of its expansion
	eval   []string
}

func (l *siteLog) wrap(p Problem[string]) Problem[string] {
	l.expand = map[string]string{}
	exp, ev := p.Expand, p.Evaluate
	p.Expand = func(ctx context.Context, s string, depth int) ([]string, error) {
		l.mu.Lock()
		l.expand[s] = Site(ctx)
		l.mu.Unlock()
		return exp(ctx, s, depth)
	}
	p.Evaluate = func(ctx context.Context, parents, cands []string, depth int) ([]float64, error) {
		l.mu.Lock()
		l.eval = append(l.eval, Site(ctx))
		l.mu.Unlock()
		return ev(ctx, parents, cands, depth)
	}
	return p
}

// TestBFSSites: each expansion is named by its step and its position in
// the frontier it expands, each evaluation by its step; no two callbacks
// share a site, at any concurrency.
func TestBFSSites(t *testing.T) {
	for _, conc := range []int{1, 4} {
		var l siteLog
		res, err := BFS(context.Background(), l.wrap(bfsTree().problem()), "root", BFSOptions{Steps: 3, Beam: 2, Concurrency: conc})
		if err != nil {
			t.Fatal(err)
		}
		// The frontier each step expanded, in order: root, then the
		// selected nodes of depth 1 and 2, best value first (the beam).
		want := map[string]string{"root": "s1/f0"}
		for depth := 1; depth <= 2; depth++ {
			var kept []*Node[string]
			for _, n := range res.Tree.Nodes {
				if n.Depth == depth && n.Selected {
					kept = append(kept, n)
				}
			}
			slices.SortStableFunc(kept, func(a, b *Node[string]) int { return cmp.Compare(b.Value, a.Value) })
			if len(kept) != 2 {
				t.Fatalf("depth %d kept %d nodes, want the beam of 2", depth, len(kept))
			}
			for i, n := range kept {
				want[n.State] = fmt.Sprintf("s%d/f%d", depth+1, i)
			}
		}
		for s, site := range want {
			if l.expand[s] != site {
				t.Errorf("concurrency %d: %s expanded at %q, want %q (all: %v)", conc, s, l.expand[s], site, l.expand)
			}
		}
		if len(l.expand) != len(want) {
			t.Errorf("concurrency %d: expansions %v, want %v", conc, l.expand, want)
		}
		if !slices.Equal(l.eval, []string{"s1", "s2", "s3"}) {
			t.Errorf("concurrency %d: evaluations at %v, want s1 s2 s3", conc, l.eval)
		}
	}
}

// TestDFSSites: a node's expansion and its children's evaluation are named
// by the node's ID, distinct for distinct nodes.
func TestDFSSites(t *testing.T) {
	var l siteLog
	res, err := DFS(context.Background(), l.wrap(bfsTree().problem()), "root", DFSOptions{Steps: 3, MaxSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for id, n := range res.Tree.Nodes {
		ids[n.State] = id
	}
	seen := map[string]bool{}
	for s, site := range l.expand {
		if want := fmt.Sprintf("n%d", ids[s]); site != want {
			t.Errorf("%s expanded at %q, want %q", s, site, want)
		}
		if seen[site] {
			t.Errorf("site %q used twice", site)
		}
		seen[site] = true
	}
	if len(l.expand) < 3 {
		t.Fatalf("only %d expansions", len(l.expand))
	}
	for _, site := range l.eval {
		if !seen[site] {
			t.Errorf("an evaluation at %q, not at an expanded node's site", site)
		}
	}
}
