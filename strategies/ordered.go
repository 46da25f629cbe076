package strategies

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// Ordered is implemented by strategies whose items can depend on the items
// of the same run solved before them: the ToT reference's run-wide value
// cache keeps the value its first asker read, so which puzzle asked first
// is part of the protocol. The engine solves such a run's items one at a
// time in the range's order (each item's own calls still concurrent),
// hands the strategy the items a resumed run already has before the first
// one, and refuses to shard the run.
type Ordered interface {
	// InOrder says why the configured strategy needs its items in order,
	// or "" when it does not.
	InOrder() string
	// Restore sets the run's state to what solving done, in the range's
	// order, left it in; done are the items the run already has (none
	// for a new run).
	Restore(task tasks.Task, lib *prompts.Library, done []Solved) error
}

// Solved is an item a run already has: its instance and the detail its
// Result stored.
type Solved struct {
	Instance tasks.Instance
	Detail   json.RawMessage
}
