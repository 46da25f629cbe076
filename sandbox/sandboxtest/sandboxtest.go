// Package sandboxtest gives tests the bubblewrap sandbox, started once per
// test binary. A test that needs it is skipped where bubblewrap cannot
// start, and fails instead when BENCH_REQUIRE_SANDBOX is set (as CI sets
// it), so a missing install never passes as skipped tests.
package sandboxtest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
)

var (
	once   sync.Once
	runner *sandbox.Bwrap
	err    error
)

// Runner returns the sandbox, or skips (or fails) t without one.
func Runner(t testing.TB) *sandbox.Bwrap {
	t.Helper()
	once.Do(func() { runner, err = sandbox.NewBwrap(context.Background()) })
	if err != nil {
		if os.Getenv("BENCH_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox, and BENCH_REQUIRE_SANDBOX is set: %v", err)
		}
		t.Skipf("no sandbox here (set BENCH_REQUIRE_SANDBOX=1 to fail instead): %v", err)
	}
	return runner
}
