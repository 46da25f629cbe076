package bench

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/catalog"
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

// Catalog answers what the read side (runinfo, results, the viewer) asks
// of the tasks and strategies a recorded run names, so the read side
// imports neither catalog/ nor strategies/ (runinfo.Catalog).
type Catalog struct{}

var _ runinfo.Catalog = Catalog{}

// TaskRule is the bundled task's scoring rule under rule ("" its
// default); a rule the task does not choose between is its default.
func (Catalog) TaskRule(task, rule string) (string, bool) {
	ts, err := catalog.LookupTask(task)
	if err != nil {
		return "", false
	}
	t := ts.New()
	if c, ok := t.(tasks.RuleChooser); ok && rule != "" {
		if t, err = c.WithRule(rule); err != nil {
			return "", false
		}
	}
	return tasks.Rule(t), true
}

// RuleForgeable is tasks.RuleForgeable.
func (Catalog) RuleForgeable(description string) bool { return tasks.RuleForgeable(description) }

// ParamSummary is strategies.ParamSummary.
func (Catalog) ParamSummary(strategy string, params json.RawMessage) string {
	return strategies.ParamSummary(strategy, params)
}

// OpenTask opens the task (catalog.OpenTask) and reads its items.
func (Catalog) OpenTask(task, taskSpec, rule string) (runinfo.Task, error) {
	t, err := catalog.OpenTask(task, taskSpec, rule)
	if err != nil {
		return nil, err
	}
	all, err := t.Instances()
	if err != nil {
		return nil, err
	}
	rt := recordedTask{task: t, insts: map[int]tasks.Instance{}}
	for _, in := range all {
		rt.insts[in.Index] = in
	}
	return rt, nil
}

// recordedTask is an opened task with its items by index.
type recordedTask struct {
	task  tasks.Task
	insts map[int]tasks.Instance
}

func (r recordedTask) Gold(idx int) string { return r.insts[idx].Gold }

func (r recordedTask) HiddenTests(idx int) string {
	ts, ok := r.task.(tasks.TestShower)
	in, found := r.insts[idx]
	if !ok || !found {
		return ""
	}
	return ts.HiddenTests(in)
}

func (r recordedTask) Extracted(idx int, output string) string {
	in, ok := r.insts[idx]
	if !ok {
		return ""
	}
	return r.task.Score(in, output).Answer
}

func (r recordedTask) LabelKeys() []string {
	if lt, ok := r.task.(tasks.Labeled); ok {
		return lt.LabelKeys()
	}
	return nil
}

func (r recordedTask) Labels(key string) map[int]string {
	lt, ok := r.task.(tasks.Labeled)
	if !ok {
		return nil
	}
	out := map[int]string{}
	for idx, in := range r.insts {
		if v, ok := lt.Labels(in)[key]; ok {
			out[idx] = v
		}
	}
	return out
}
