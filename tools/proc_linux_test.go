package tools

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// procState is a process's state letter from /proc ("" when it is gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+3 > len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

// alive reports whether a process runs (a zombie has ended).
func alive(pid int) bool {
	st := procState(pid)
	return st != "" && st != "Z" && st != "X"
}

// pgidOf is a process's group, from /proc (0 when it is gone).
func pgidOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 3 {
		return 0
	}
	n, _ := strconv.Atoi(f[2])
	return n
}

// groupMembers lists the live processes of a process group.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pgidOf(pid) == pgid && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// serverPids reads the pids file of forking servers: one list per start,
// the server first and its children after.
func serverPids(t *testing.T, path string) [][]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, n, _ := strings.Cut(line, " ")
		pid, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("pids file: %q", line)
		}
		if kind == "server" {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], pid)
	}
	return out
}

// gone waits up to d for the processes and the process group to end, and
// reports those left.
func gone(pids []int, pgid int, d time.Duration) (left []int) {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		left = left[:0]
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		if pgid > 0 {
			left = append(left, groupMembers(pgid)...)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}

// forking is a stdio server of this test binary that forks two children
// (one ignoring SIGTERM) and lists its processes in pids; through sh it is
// started by a shell that does not exec it.
func forking(name, pids string, viaShell bool) Server {
	s := stdio(name)
	s.Env[toolstest.ForkEnv] = "2"
	s.Env[toolstest.PidsEnv] = pids
	if viaShell {
		s.Command, s.Args = "/bin/sh", []string{"-c", `"$0"; exit $?`, os.Args[0]}
	}
	s.Timeout = 20 * time.Second
	return s
}

// ownGroup checks that a server runs in a process group of its own.
func ownGroup(t *testing.T, pid int) int {
	t.Helper()
	g := pgidOf(pid)
	if g == 0 || g == syscall.Getpgrp() {
		t.Fatalf("server %d is in bench's process group %d", pid, g)
	}
	return g
}

// TestServerGroupEndsOnRestartAndClose: a server that forks, started
// directly or through a shell, leaves no process after a restart (after
// its crash, after a call past its timeout) or after Close, the child
// that ignores SIGTERM included.
func TestServerGroupEndsOnRestartAndClose(t *testing.T) {
	for _, viaShell := range []bool{false, true} {
		t.Run(fmt.Sprintf("shell=%v", viaShell), func(t *testing.T) {
			t.Parallel() // each stop waits for a child that ignores SIGTERM
			pids := filepath.Join(t.TempDir(), "pids")
			srv := forking("f", pids, viaShell)
			hung := forking("h", pids+".hung", viaShell)
			hung.Timeout = 300 * time.Millisecond
			set, _ := connect(t, []Server{srv, hung})
			h := set.ForItem(nil, CacheOff, 1, 0)
			if res := call(t, h, "f_echo", `{"message": "one"}`); res.Refused {
				t.Fatalf("echo: %+v", res)
			}
			first := serverPids(t, pids)[0]
			g1 := ownGroup(t, first[0])
			t.Logf("first start: processes %v, group %d of %d processes", first, g1, len(groupMembers(g1)))
			if res := call(t, h, "f_crash", `{}`); !res.Refused {
				t.Fatalf("crash: %+v", res)
			}
			if res := call(t, h, "f_echo", `{"message": "two"}`); res.Refused {
				t.Fatalf("echo after the crash: %+v", res)
			}
			starts := serverPids(t, pids)
			if len(starts) != 2 {
				t.Fatalf("%d starts, want 2", len(starts))
			}
			if left := gone(first, g1, 5*time.Second); len(left) > 0 {
				t.Errorf("after the restart, processes of the crashed server's group are left: %v", left)
			}

			// A call past its timeout ends the server's group.
			call(t, h, "h_echo", `{"message": "x"}`)
			stuck := serverPids(t, pids+".hung")[0]
			gh := ownGroup(t, stuck[0])
			if res := call(t, h, "h_hang", `{}`); !strings.Contains(res.Observation, "no answer within") {
				t.Fatalf("hang: %+v", res)
			}
			if left := gone(stuck, gh, 5*time.Second); len(left) > 0 {
				t.Errorf("after a call past its timeout, processes of the server's group are left: %v", left)
			}

			second := starts[1]
			g2 := ownGroup(t, second[0])
			n := len(groupMembers(g2))
			if err := set.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if left := gone(second, g2, time.Second); len(left) > 0 {
				t.Errorf("after Close, processes of the server's group (%d before) are left: %v", n, left)
			}
		})
	}
}

// killedHost runs a bench stand-in (hostMain) connected to srv, kills it
// with SIGKILL (so no Close runs) and returns the server's process group.
func killedHost(t *testing.T, srv Server) int {
	t.Helper()
	cfg, _ := json.Marshal(srv)
	host := exec.Command(os.Args[0])
	host.Env = append(os.Environ(), hostEnv+"="+string(cfg))
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	word, n, _ := strings.Cut(strings.TrimSpace(line), " ")
	g, err := strconv.Atoi(n)
	if word != "ready" || err != nil || g <= 0 {
		t.Fatalf("host: %q", line)
	}
	t.Logf("server group %d of %d processes: %v", g, len(groupMembers(g)), groupMembers(g))
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	return g
}

// TestBenchKilledLeavesNoServer: bench killed with SIGKILL (which runs no
// Close) while a call hangs leaves no process of a forking server started
// through a shell.
func TestBenchKilledLeavesNoServer(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	srv := forking("k", pids, true)
	srv.Env[toolstest.OnlyEnv] = "hang"
	g := killedHost(t, srv)
	procs := serverPids(t, pids)[0]
	if pgidOf(procs[0]) != g {
		t.Errorf("server %d is not in the group %d", procs[0], g)
	}
	if left := gone(procs, g, 5*time.Second); len(left) > 0 {
		t.Errorf("after bench was killed, processes of the server's group are left: %v", left)
	}
}

// everythingViaNpx is server-everything started as users start it, by
// npx (which starts a shell that starts node), offline from the install.
func everythingViaNpx(t *testing.T) Server {
	path := npmServer(t, "server-everything")
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("no npx")
	}
	dir := filepath.Join(filepath.Dir(path), "..", "..", "..", "..")
	return Server{Name: "everything", Command: "npx", Args: []string{"--offline", "--prefix", dir, "mcp-server-everything", "stdio"}}
}

// TestNpxServerLeavesNoProcess: a server started by npx leaves no process
// after a restart (a call past its timeout), after Close, or after bench
// is killed.
func TestNpxServerLeavesNoProcess(t *testing.T) {
	t.Parallel()
	srv := everythingViaNpx(t)
	srv.Timeout = 2 * time.Second
	set, _ := connect(t, []Server{srv})
	h := set.ForItem(nil, CacheOff, 1, 0)
	group := func() int {
		set.servers[0].mu.Lock()
		defer set.servers[0].mu.Unlock()
		return set.servers[0].proc.cmd.Process.Pid
	}
	if res := call(t, h, "get-sum", `{"a": 2, "b": 40}`); res.Refused || !strings.Contains(res.Observation, "42") {
		t.Fatalf("get-sum: %+v", res)
	}
	g1 := group()
	t.Logf("npx's group %d: %d processes", g1, len(groupMembers(g1)))
	if res := call(t, h, "trigger-long-running-operation", `{"duration": 30, "steps": 1}`); !strings.Contains(res.Observation, "no answer within") {
		t.Fatalf("a long operation: %+v", res)
	}
	if left := gone(nil, g1, 5*time.Second); len(left) > 0 {
		t.Errorf("after a call past its timeout, processes of npx's group are left: %v", left)
	}
	if res := call(t, h, "get-sum", `{"a": 1, "b": 2}`); res.Refused {
		t.Fatalf("get-sum after the restart: %+v", res)
	}
	g2 := group()
	set.Close()
	if left := gone(nil, g2, time.Second); len(left) > 0 {
		t.Errorf("after Close, processes of npx's group are left: %v", left)
	}
	g3 := killedHost(t, everythingViaNpx(t))
	if left := gone(nil, g3, 5*time.Second); len(left) > 0 {
		t.Errorf("after bench was killed, processes of npx's group are left: %v", left)
	}
}
