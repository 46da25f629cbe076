package tasks

import (
	"context"

	"github.com/reasonbench/reasonbench/sandbox"
)

// Executor runs model-written programs for one item, in the run's sandbox.
// Each execution is recorded with the item (program, result, duration,
// which limit) under site, which names where it sits in the strategy's or
// scorer's own program ("t1/i2/internal", "hidden", "s3/python"), never when
// it happens, so that a rerun records the same executions.
type Executor interface {
	Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error)
}

// Executed is implemented by tasks whose scores run programs (HumanEval,
// MBPP, code file tasks): the engine hands each item a copy bound to the
// item's executor, as it binds a judge (Judged).
type Executed interface {
	// WithExecutor returns the task scoring one item's outputs through ex
	// (a copy: the same capabilities), and a function reporting the first
	// execution that could not run (the sandbox failing, not the program);
	// the item fails with it.
	WithExecutor(ctx context.Context, ex Executor) (Task, func() error)
}

// RunnerExecutor executes on a sandbox runner and records nothing: for
// `bench score` and tests; the engine's executor records each execution.
type RunnerExecutor struct{ Runner sandbox.Runner }

// Execute runs p on the runner.
func (r RunnerExecutor) Execute(ctx context.Context, _ string, p sandbox.Program) (sandbox.Result, error) {
	return r.Runner.Run(ctx, p)
}
