package bench

import (
	"context"
	"maps"
	"slices"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/store"
)

// itemExecutor runs an item's programs in the run's sandbox and records
// each execution with the item under its site, whatever the program did.
// A sandbox that could not run is the caller's error, recorded nowhere.
type itemExecutor struct {
	runner sandbox.Runner
	st     *store.Store
	run    int64
	index  int
}

// Execute runs p and records it. A program with a peer (the isolated code
// rule's judge and the program it judges) is two records: the peer's at
// site + "/program".
func (x itemExecutor) Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	res, err := x.runner.Run(ctx, p)
	if err != nil {
		return res, err
	}
	if p.Peer != nil && res.Peer != nil {
		if err := x.record(ctx, site+"/program", *p.Peer, *res.Peer); err != nil {
			return res, err
		}
	}
	return res, x.record(ctx, site, p, res)
}

// StartSession starts p in the run's sandbox, recording nothing: each
// exchange with it is recorded by Record.
func (x itemExecutor) StartSession(ctx context.Context, p sandbox.Program) (*sandbox.Session, error) {
	if s, ok := x.runner.(sandbox.Starter); ok {
		return s.Start(ctx, p)
	}
	return nil, sandbox.ErrNoSessions
}

// Record records an exchange with a session with the item under site.
func (x itemExecutor) Record(ctx context.Context, site string, p sandbox.Program, res sandbox.Result) error {
	return x.record(ctx, site, p, res)
}

func (x itemExecutor) record(ctx context.Context, site string, p sandbox.Program, res sandbox.Result) error {
	program := p.Source
	for _, name := range slices.Sorted(maps.Keys(p.Files)) { // shown after main.py, as written beside it
		program += "\n# --- " + name + " ---\n" + p.Files[name]
	}
	e := store.Execution{RunID: x.run, Item: x.index, Site: site, Program: program, Stdin: p.Stdin,
		Status: string(res.Status), ExitCode: res.ExitCode, Signal: res.Signal, Stdout: redact(res.Stdout), Stderr: redact(res.Stderr),
		Truncated: res.Truncated, DurationMS: float64(res.Duration.Microseconds()) / 1000}
	return x.st.PutExecution(context.WithoutCancel(ctx), e)
}
