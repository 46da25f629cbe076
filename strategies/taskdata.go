package strategies

import (
	"fmt"
	"slices"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// contextParam is the context parameter of the strategies that render a
// prompt with the input: which reading material the prompt shows, for tasks
// that have some (tasks.ContextRenderer).
var contextParam = param.Param{
	Name: "context", Kind: param.String, Default: "", Allowed: []string{"", "gold", "distractor", "none"},
	Doc: "reading shown with the input, for tasks that have it: hotpotqa gold|distractor|none, file tasks with context gold|none (empty: the task's default, gold)",
}

// checkContext rejects a context mode the task does not offer.
func checkContext(t tasks.Task, mode string) error {
	if mode == "" {
		return nil
	}
	cr, ok := t.(tasks.ContextRenderer)
	if !ok {
		return fmt.Errorf("parameter context=%s: task %s shows no context", mode, t.Name())
	}
	if !slices.Contains(cr.Contexts(), mode) {
		return fmt.Errorf("parameter context=%s: task %s knows %v", mode, t.Name(), cr.Contexts())
	}
	return nil
}

// promptData is the template data for inst with the context mode ("" is the
// task's default, or none for tasks without contexts).
func promptData(t tasks.Task, inst tasks.Instance, mode string) (PromptData, error) {
	d := PromptData{Input: inst.Input}
	cr, ok := t.(tasks.ContextRenderer)
	if !ok {
		if mode != "" {
			return d, checkContext(t, mode)
		}
		return d, nil
	}
	if mode == "" {
		if modes := cr.Contexts(); len(modes) > 0 {
			mode = modes[0]
		}
	}
	if mode == "" {
		return d, nil
	}
	var err error
	d.Context, err = cr.RenderContext(inst, mode)
	return d, err
}

// mergeMetrics adds the entries of src that dst does not have yet,
// allocating dst if needed.
func mergeMetrics(dst, src map[string]float64) map[string]float64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]float64{}
	}
	for k, v := range src {
		if _, taken := dst[k]; !taken {
			dst[k] = v
		}
	}
	return dst
}

// meanSampleMetrics averages each task metric over the samples (a sample
// without a metric counts as 0 for it).
func meanSampleMetrics(samples []reading.Sample) map[string]float64 {
	sums := map[string]float64{}
	for _, s := range samples {
		for k, v := range s.Metrics {
			sums[k] += v
		}
	}
	if len(sums) == 0 {
		return nil
	}
	for k := range sums {
		sums[k] /= float64(len(samples))
	}
	return sums
}
