package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

// scriptedRunner answers every program with res, or fails with err.
type scriptedRunner struct {
	res sandbox.Result
	err error
}

func (s scriptedRunner) Run(context.Context, sandbox.Program) (sandbox.Result, error) {
	return s.res, s.err
}

func TestItemExecutorRecordsEveryExecution(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	id := newRunRow(t, st)
	res := sandbox.Result{Status: sandbox.Timeout, Stdout: "partial", Stderr: "", Duration: 1500 * time.Microsecond}
	x := itemExecutor{runner: scriptedRunner{res: res}, st: st, run: id, index: 7}
	prog := sandbox.Program{Source: "while True: pass", Files: map[string]string{"b.py": "B", "a.py": "A"}}
	got, err := x.Execute(ctx, "s0/run", prog)
	if err != nil || got.Status != sandbox.Timeout {
		t.Fatalf("Execute = %+v, %v", got, err)
	}
	// The same site again replaces the record (a resumed item redoes it).
	if _, err := x.Execute(ctx, "s0/run", prog); err != nil {
		t.Fatal(err)
	}
	execs, err := st.Executions(ctx, id, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(execs) != 1 {
		t.Fatalf("%d executions stored, want 1: %+v", len(execs), execs)
	}
	e := execs[0]
	want := "while True: pass\n# --- a.py ---\nA\n# --- b.py ---\nB"
	if e.Site != "s0/run" || e.Status != "timeout" || e.Stdout != "partial" || e.Program != want || e.DurationMS != 1.5 {
		t.Fatalf("stored %+v", e)
	}
	// A program with a peer: two records, the peer's at site/program.
	pres := res
	pres.Peer = &sandbox.Result{Status: sandbox.OK, Stderr: "peer"}
	px := itemExecutor{runner: scriptedRunner{res: pres}, st: st, run: id, index: 9}
	if _, err := px.Execute(ctx, "hidden", sandbox.Program{Source: "judge", Peer: &sandbox.Program{Source: "candidate"}}); err != nil {
		t.Fatal(err)
	}
	execs, _ = st.Executions(ctx, id, 9)
	if len(execs) != 2 || execs[0].Site != "hidden" || execs[0].Program != "judge" || execs[0].Status != "timeout" ||
		execs[1].Site != "hidden/program" || execs[1].Program != "candidate" || execs[1].Status != "ok" || execs[1].Stderr != "peer" {
		t.Fatalf("a program with a peer stored %+v", execs)
	}
	// A sandbox that cannot run is the caller's error and records nothing.
	bad := itemExecutor{runner: scriptedRunner{err: sandbox.ErrUnavailable}, st: st, run: id, index: 8}
	if _, err := bad.Execute(ctx, "x", prog); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if execs, _ := st.Executions(ctx, id, 8); len(execs) != 0 {
		t.Fatalf("a failed sandbox recorded %+v", execs)
	}
}

// sandboxStrategy declares that it runs programs.
type sandboxStrategy struct{ strategies.Strategy }

func (sandboxStrategy) NeedsSandbox() string { return "strategy toy runs programs" }

func TestStartSandboxOnlyWhenNeededAndNeverWithoutOne(t *testing.T) {
	ctx := context.Background()
	p := &plan{}
	e := &Engine{Sandbox: scriptedRunner{}}
	if err := e.startSandbox(ctx, p); err != nil || p.runner != nil {
		t.Fatalf("a plan running no programs got a sandbox (%v, %v)", p.runner, err)
	}
	task := tasks.Task(nil)
	p.executes = executes(task, sandboxStrategy{})
	if p.executes == "" {
		t.Fatal("a SandboxUser strategy does not need the sandbox")
	}
	if err := e.startSandbox(ctx, p); err != nil || p.runner == nil {
		t.Fatalf("startSandbox = %v, runner %v", err, p.runner)
	}
	// Without bubblewrap on PATH the run is refused, naming the package.
	t.Setenv("PATH", t.TempDir())
	p2 := &plan{executes: p.executes}
	err := (&Engine{}).startSandbox(ctx, p2)
	if err == nil || p2.runner != nil || !strings.Contains(err.Error(), "apt-get install bubblewrap") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("startSandbox without bwrap = %v (runner %v); want a one-line error naming the package", err, p2.runner)
	}
}

func newRunRow(t *testing.T, st *store.Store) int64 {
	t.Helper()
	id, err := st.CreateRun(context.Background(), store.Run{Task: "gsm8k", Strategy: "pal", Model: SimModel, Simulated: true, Range: "0:1"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestItemExecutorSessions: an exchange with a session is recorded as an
// execution at its site; a runner that keeps no sessions says so; the
// run's end closes a strategy that keeps something running.
func TestItemExecutorSessions(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	id := newRunRow(t, st)
	x := itemExecutor{runner: scriptedRunner{}, st: st, run: id, index: 3}
	var ex tasks.SessionExecutor = x
	if _, err := ex.StartSession(ctx, sandbox.Program{Source: "x"}); !errors.Is(err, sandbox.ErrNoSessions) {
		t.Errorf("StartSession on a runner without sessions: %v", err)
	}
	res := sandbox.Result{Status: sandbox.Exit, Stdout: "name 're' is not defined", Duration: 2 * time.Millisecond}
	if err := ex.Record(ctx, "i0/internal/1", sandbox.Program{Source: "def f(): pass\nassert f()"}, res); err != nil {
		t.Fatal(err)
	}
	execs, err := st.Executions(ctx, id, 3)
	if err != nil || len(execs) != 1 {
		t.Fatalf("%+v, %v", execs, err)
	}
	if e := execs[0]; e.Site != "i0/internal/1" || e.Program != "def f(): pass\nassert f()" || e.Status != "exit" || e.Stdout != res.Stdout || e.DurationMS != 2 {
		t.Errorf("stored %+v", e)
	}
	c := &closingStrategy{}
	(&plan{strategy: c}).closeStrategy()
	(&plan{strategy: sandboxStrategy{}}).closeStrategy() // no Close: nothing to do
	if c.closed != 1 {
		t.Errorf("closed %d times", c.closed)
	}
}

type closingStrategy struct {
	strategies.Strategy
	closed int
}

func (c *closingStrategy) Close() error { c.closed++; return nil }
