package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// running reports whether a process runs (a zombie has ended).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// leftAfter waits up to d for the processes listed in a toolstest pids
// file to end and returns those still running.
func leftAfter(t *testing.T, pidsFile string, d time.Duration) []int {
	t.Helper()
	b, err := os.ReadFile(pidsFile)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, line := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(line); err == nil {
			pids = append(pids, n)
		}
	}
	if len(pids) < 3 {
		t.Fatalf("pids file: %q", b)
	}
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		var left []int
		for _, p := range pids {
			if running(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}

// TestMCPServerProcessesEndWithBench: a stdio server started through a
// shell that forks two children (one ignoring SIGTERM) leaves no process
// once bench run ends, nor once a bench killed with SIGKILL mid-run is
// gone.
func TestMCPServerProcessesEndWithBench(t *testing.T) {
	t.Parallel() // see cli
	if testing.Short() {
		t.Skip("starts child processes")
	}
	srv, _ := countingSimAt(t, 20*time.Millisecond)
	dir := t.TempDir()
	q := sumsFile(t, dir, 12)
	config := func(pids string) string {
		return writeText(t, dir, filepath.Base(pids)+".json", fmt.Sprintf(`{"mcpServers": {"calc": {"command": "/bin/sh", "args": ["-c", "\"$0\"; exit $?", %q],
			"env": {%q: "1.0", %q: "2", %q: %q}}}}`, os.Args[0], mcpChildEnv, toolstest.ForkEnv, toolstest.PidsEnv, pids))
	}
	args := func(db, pids string) []string {
		return []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q, "--strategy", "react",
			"--set", "protocol=tools", "--mcp-config", config(pids), "--concurrency", "2", "--json"}
	}
	pids := filepath.Join(dir, "done.pids")
	runFlat(t, "run", args(filepath.Join(dir, "done.db"), pids)...)
	if left := leftAfter(t, pids, time.Second); len(left) > 0 {
		t.Errorf("after bench run ended, server processes are left: %v", left)
	}
	pids = filepath.Join(dir, "killed.pids")
	db := filepath.Join(dir, "killed.db")
	killAfter(t, args(db, pids), db, 2, 12)
	if left := leftAfter(t, pids, 5*time.Second); len(left) > 0 {
		t.Errorf("after bench was killed, server processes are left: %v", left)
	}
}
