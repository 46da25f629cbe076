package sandbox_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

// TestThroughEnvExec: a strategy's Env.Exec on the bubblewrap runner, as
// the engine will bind it: a program's failure is a Result with its
// reason, not an error.
func TestThroughEnvExec(t *testing.T) {
	r, err := sandbox.NewBwrap(context.Background())
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) && os.Getenv("BENCH_REQUIRE_SANDBOX") == "" {
			t.Skipf("no sandbox here (set BENCH_REQUIRE_SANDBOX=1 to fail instead): %v", err)
		}
		t.Fatal(err)
	}
	env := strategies.Env{Exec: tasks.RunnerExecutor{Runner: r}}
	ok, err := env.Exec.Execute(context.Background(), "t1/python", sandbox.Program{Source: "print(sum(range(10)))"})
	if err != nil || !ok.Passed() || ok.Stdout != "45\n" {
		t.Errorf("%v %+v", err, ok)
	}
	bad, err := env.Exec.Execute(context.Background(), "t2/python", sandbox.Program{Source: "import os\nwhile True:\n    os.fork()", Limits: sandbox.Limits{Procs: 8}})
	if err != nil || bad.Passed() || bad.Status != sandbox.Procs || !strings.Contains(bad.Reason(), "procs") {
		t.Errorf("%v %+v", err, bad)
	}
}
