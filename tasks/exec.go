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

// SessionExecutor is an Executor that can also keep one program running
// across executions (a sandbox.Session: a long-lived interpreter) and
// record what each exchange with it did, as Execute records a program.
type SessionExecutor interface {
	Executor
	// StartSession starts p in a sandbox of its own (recording nothing);
	// sandbox.ErrNoSessions when the run's sandbox keeps none.
	StartSession(ctx context.Context, p sandbox.Program) (*sandbox.Session, error)
	// Record records one exchange with a session under site: p describes
	// the request, res what came of it.
	Record(ctx context.Context, site string, p sandbox.Program, res sandbox.Result) error
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

// CodeProblem is a programming problem as a strategy sees it: the prompt
// (signature and docstring) and the function's name. The hidden tests are
// the task's and never reach a strategy.
type CodeProblem struct {
	ID         string
	Prompt     string // e.g. "def add(a: int, b: int) -> int:\n    \"\"\"...\"\"\"\n"
	EntryPoint string // the function the hidden tests call
	Language   string // "python"
}

// Coding is implemented by programming tasks (HumanEval, MBPP, code file
// tasks): their instances are CodeProblems, and Score runs an output's
// program against the hidden tests in the sandbox (the task is Executed).
type Coding interface {
	Problem(inst Instance) CodeProblem
}

// TestShower is implemented by tasks that check an answer by a program
// rather than against a gold answer (HumanEval, MBPP): HiddenTests is that
// program's source, for a reader (the viewer's item page shows it where a
// gold answer would be). It never reaches a strategy.
type TestShower interface {
	HiddenTests(inst Instance) string
}

// StartSession starts p on the runner, when it keeps sessions.
func (r RunnerExecutor) StartSession(ctx context.Context, p sandbox.Program) (*sandbox.Session, error) {
	if s, ok := r.Runner.(sandbox.Starter); ok {
		return s.Start(ctx, p)
	}
	return nil, sandbox.ErrNoSessions
}

// Record records nothing.
func (RunnerExecutor) Record(context.Context, string, sandbox.Program, sandbox.Result) error {
	return nil
}
