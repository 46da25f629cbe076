package search

import (
	"context"
	"fmt"
)

type siteKey struct{}

// Site names where in the search a call to Expand or Evaluate sits, from
// the search's own deterministic program, never from timing: BFS
// "s<step>/f<frontier position>" for an expansion and "s<step>" for the
// step's evaluation; DFS and MCTS "n<node ID>" for the expansion of a node
// and the evaluation of its children (each node is expanded at most once).
// Strategies build their calls' identities (llm.Request.Call) on it, so
// that two expansions of equal states are two draws and a resumed search
// repeats the draws of an uninterrupted one. "" outside a search.
func Site(ctx context.Context) string {
	s, _ := ctx.Value(siteKey{}).(string)
	return s
}

// WithSite returns ctx carrying site (for callers driving Problem
// callbacks themselves, and tests).
func WithSite(ctx context.Context, site string) context.Context {
	return context.WithValue(ctx, siteKey{}, site)
}

func nodeSite(ctx context.Context, id int) context.Context {
	return WithSite(ctx, fmt.Sprintf("n%d", id))
}
