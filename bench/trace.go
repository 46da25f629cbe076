package bench

import (
	"context"

	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
)

// itemTrace stores an item's trees and trajectory steps.
type itemTrace struct {
	st    *store.Store
	run   int64
	index int
}

func (t itemTrace) Tree(ctx context.Context, nodes []strategies.TreeNode) error {
	out := make([]store.Node, len(nodes))
	for i, n := range nodes {
		out[i] = store.Node{RunID: t.run, Item: t.index, ID: n.ID, Parent: n.Parent, Depth: n.Depth, Thought: n.Thought,
			Value: n.Value, Selected: n.Selected, Pruned: n.Pruned, Terminal: n.Terminal}
	}
	return t.st.PutNodes(context.WithoutCancel(ctx), t.run, t.index, out)
}

func (t itemTrace) Step(ctx context.Context, trial, step int, kind, content string) error {
	return t.st.PutStep(context.WithoutCancel(ctx), store.Step{RunID: t.run, Item: t.index, Trial: trial, Step: step, Kind: kind, Content: content})
}
