package bench

import (
	"context"
	"encoding/json"
	"fmt"

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
		out[i] = store.Node{RunID: t.run, Item: t.index, ID: n.ID, Parent: n.Parent, Depth: n.Depth, Thought: redact(n.Thought),
			Value: n.Value, Selected: n.Selected, Pruned: n.Pruned, Terminal: n.Terminal, Visits: n.Visits}
	}
	return t.st.PutNodes(context.WithoutCancel(ctx), t.run, t.index, out)
}

func (t itemTrace) Step(ctx context.Context, trial, step int, kind, content string) error {
	return t.st.PutStep(context.WithoutCancel(ctx), store.Step{RunID: t.run, Item: t.index, Trial: trial, Step: step, Kind: kind, Content: redact(content)})
}

// itemCheckpoint keeps an item's progress in the store.
type itemCheckpoint struct {
	itemTrace
	calls *store.CallLog // stored first: the checkpoint covers the calls made so far
}

func (c itemCheckpoint) Save(ctx context.Context, next int, state any) error {
	b, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := c.calls.Flush(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	return c.st.SaveCheckpoint(context.WithoutCancel(ctx), c.run, c.index, next, b)
}

func (c itemCheckpoint) Load(ctx context.Context, state any) (int, bool, error) {
	next, b, ok, err := c.st.LoadCheckpoint(ctx, c.run, c.index)
	if err != nil || !ok {
		return 0, false, err
	}
	if err := json.Unmarshal(b, state); err != nil {
		return 0, false, fmt.Errorf("checkpoint of item %d: %w", c.index, err)
	}
	return next, true, nil
}
