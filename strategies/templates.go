package strategies

import "github.com/reasonbench/reasonbench/strategies/param"

// The templates each strategy renders (Spec.Templates), by the names
// render resolves under the task's folders (tasks.TemplateName), are
// declared beside the strategy: in its registry line (fixedTemplates) or
// as a function in its own file (reactTemplates in react.go, debate's,
// reflexion's, selfrefine's; tot's thoughtTemplates, which mcts shares).
// The engine refuses a run whose task lacks one before the run is stored,
// instead of failing every item.

// Probe is a small configuration that exercises a strategy: the
// determinism, identity and completions tests run every registry probe,
// so a new strategy is tested by declaring one.
type Probe struct {
	Task, Range string
	Params      map[string]any
}

// fixedTemplates declares templates every configuration renders.
func fixedTemplates(names ...string) func(param.Values) []string {
	return func(param.Values) []string { return names }
}
