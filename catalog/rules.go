package catalog

import (
	"fmt"

	"github.com/reasonbench/reasonbench/tasks"
)

// TaskWithRule builds the task scored by the named rule; "" is the task's
// default rule.
func TaskWithRule(ts TaskSpec, rule string) (tasks.Task, error) {
	task := ts.New()
	if rule == "" {
		return task, nil
	}
	rc, ok := task.(tasks.RuleChooser)
	if !ok {
		name := tasks.RuleName(task)
		if name == "" {
			name = "its own"
		}
		return nil, fmt.Errorf("--rule %s: task %s has one scoring rule (%s); drop --rule", rule, ts.Name, name)
	}
	t, err := rc.WithRule(rule)
	if err != nil {
		return nil, fmt.Errorf("scoring rule (--scorer or --rule): %w", err)
	}
	return t, nil
}
