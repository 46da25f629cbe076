package code

import (
	"context"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"github.com/reasonbench/reasonbench/strategies/param"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	codetask "github.com/reasonbench/reasonbench/tasks/code"
)

// countingExecutor records the sites it ran.
type countingExecutor struct {
	tasks.Executor
	sites []string
}

func (c *countingExecutor) Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	c.sites = append(c.sites, site)
	return c.Executor.Execute(ctx, site, p)
}

// TestIOOnHumanEval: io with k=3 on the simulated coder, each item's task
// bound to the sandbox as the engine binds it: every sample's program runs
// once at its own site, and the item's pass@1 is the fraction of its
// samples whose verdict is correct.
func TestIOOnHumanEval(t *testing.T) {
	r := sandboxtest.Runner(t)
	model, err := sim.New(sim.DefaultParams(), Responder{})
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := prompts.Bundled()
	spec, _ := strategies.Lookup("io")
	v, err := param.Resolve(spec.Params, map[string]any{"k": 3})
	if err != nil {
		t.Fatal(err)
	}
	strat, _ := spec.New(v)
	task := codetask.NewHumanEval()
	insts, _ := task.Instances()
	for _, inst := range insts[:4] {
		ex := &countingExecutor{Executor: tasks.RunnerExecutor{Runner: r}}
		bound, failed := task.(tasks.Executed).WithExecutor(context.Background(), ex)
		env := strategies.Env{Sampler: llm.Chain(model, llm.Identify(5, 1)), Task: bound, Prompts: lib, Seed: 5}
		res, err := strat.Solve(context.Background(), env, inst)
		if err != nil || failed() != nil {
			t.Fatal(err, failed())
		}
		if len(ex.sites) != 3 || ex.sites[0] != "hidden" || ex.sites[1] != "hidden/1" || ex.sites[2] != "hidden/2" {
			t.Errorf("%s: sites %v", inst.Key, ex.sites)
		}
		if res.Metrics["pass@1"] != res.Accuracy {
			t.Errorf("%s: pass@1 %v, accuracy %v", inst.Key, res.Metrics["pass@1"], res.Accuracy)
		}
		if _, ok := res.Metrics["pass@3"]; !ok || res.Score.Reason == "no sandbox" {
			t.Errorf("%s: metrics %v, score %+v", inst.Key, res.Metrics, res.Score)
		}
	}
}
