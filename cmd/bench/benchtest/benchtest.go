// Package benchtest gives tests the bench command as a program of its own
// (the README's tour, the Python example, cmd/bench's killed runs, servers
// and shards), built without the race detector: what a user's binary does.
package benchtest

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Binary is Build for a test, which it fails when the build fails.
func Binary(t testing.TB, dir string) string {
	t.Helper()
	bin, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Build returns BENCH_BINARY when it is set (make test sets it to the
// bin/bench it has just built), else builds cmd/bench into dir and
// returns that path.
func Build(dir string) (string, error) {
	if bin := os.Getenv("BENCH_BINARY"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(dir, "bench")
	if out, err := exec.Command(goTool(), "build", "-o", bin, "github.com/reasonbench/reasonbench/cmd/bench").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/bench: %v\n%s", err, out)
	}
	return bin, nil
}

// goTool is $GO, else the go on PATH, else the toolchain's own.
func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	if g, err := exec.LookPath("go"); err == nil {
		return g
	}
	return filepath.Join(cmp.Or(os.Getenv("GOROOT"), runtime.GOROOT()), "bin", "go")
}
