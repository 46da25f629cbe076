//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var (
	shared    *Bwrap
	sharedErr error
	once      sync.Once
)

// runner is the package's one sandbox. Without bubblewrap the tests skip,
// unless BENCH_REQUIRE_SANDBOX is set (CI sets it): then they fail.
func runner(t testing.TB) *Bwrap {
	t.Helper()
	once.Do(func() { shared, sharedErr = NewBwrap(context.Background()) })
	if sharedErr != nil {
		if errors.Is(sharedErr, ErrUnavailable) && os.Getenv("BENCH_REQUIRE_SANDBOX") == "" {
			t.Skipf("no sandbox here (set BENCH_REQUIRE_SANDBOX=1 to fail instead): %v", sharedErr)
		}
		t.Fatal(sharedErr)
	}
	return shared
}

// host is what a hostile program is after, on the host side.
type host struct {
	dir      string // a directory anyone may write to, were it visible
	db       string // a database file, world-readable as SQLite makes them
	dbBytes  []byte
	secret   string // OPENAI_API_KEY's value
	port     int    // a listener on 127.0.0.1
	accepted *atomic.Int32
	marker   string // in the command line of a process meant to outlive the program
	sentinel *exec.Cmd
}

func newHost(t *testing.T) *host {
	h := &host{secret: "sk-test-" + strconv.FormatInt(time.Now().UnixNano(), 36), accepted: new(atomic.Int32)}
	dir, err := os.MkdirTemp("", "sandbox-host-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	h.dir = dir
	h.db = filepath.Join(dir, "bench.db")
	h.dbBytes = []byte("SQLite format 3\x00 run 1 item 7 answer " + h.secret)
	if err := os.WriteFile(h.db, h.dbBytes, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(h.db, 0o666); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	h.port = ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.accepted.Add(1)
			c.Close()
		}
	}()
	h.marker = "reasonbench-orphan-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	h.sentinel = exec.Command("sleep", "60")
	if err := h.sentinel.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.sentinel.Process.Kill(); h.sentinel.Wait() })
	return h
}

// processesWith lists host processes whose command line contains s.
func processesWith(s string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cl, []byte(s)) {
			found = append(found, e.Name()+": "+strings.ReplaceAll(string(cl), "\x00", " "))
		}
	}
	return found
}

// processesOf lists host processes whose real uid is one the pool handed
// out: a sandbox that ended must leave none running. Zombies are dead
// already: bubblewrap's pid 1 is reparented to the host's init, which
// reaps it in its own time.
func processesOf(p *uidPool) []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	lo, hi := p.base, p.base+p.next
	p.mu.Unlock()
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		st, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		f := statusFields(string(st))
		if u, _ := strconv.Atoi(f["Uid"]); u >= lo && u < hi && !strings.HasPrefix(f["State"], "Z") {
			found = append(found, e.Name()+" "+f["Name"]+" "+f["State"])
		}
	}
	return found
}

func statusFields(st string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(st, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				m[k] = f[0]
			}
		}
	}
	return m
}

// TestHostile runs each hostile program of the issue and checks that it
// was contained (the evidence on the host side) and that its result says
// why it failed.
func TestHostile(t *testing.T) {
	b := runner(t)
	h := newHost(t)
	t.Setenv("OPENAI_API_KEY", h.secret)
	shadow, _ := os.ReadFile("/etc/shadow") // readable when the tests run as root
	project, err := filepath.Abs("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	small := Limits{Wall: 5 * time.Second, CPU: 5 * time.Second, Memory: 256 << 20, Procs: 16, Output: 64 << 10}
	cases := []struct {
		name   string
		src    string
		lim    Limits
		want   Status
		signal string
		check  func(t *testing.T, r Result)
	}{
		{name: "infinite loop, wall", src: "while True: pass", lim: Limits{Wall: time.Second, CPU: 30 * time.Second},
			want: Timeout, check: func(t *testing.T, r Result) {
				if r.Duration > 4*time.Second {
					t.Errorf("killed after %v, want about 1s", r.Duration)
				}
			}},
		{name: "infinite loop, cpu", src: "while True: pass", lim: Limits{Wall: 15 * time.Second, CPU: time.Second},
			want: CPU, signal: "SIGXCPU"},
		{name: "infinite loop ignoring SIGXCPU", lim: Limits{Wall: 15 * time.Second, CPU: time.Second},
			src:  "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True: pass",
			want: CPU, signal: "SIGKILL"},
		{name: "fork bomb", src: "import os\nwhile True:\n    os.fork()", lim: small, want: Procs},
		{name: "64 sleeping children", lim: small, want: Procs,
			src: "import os, time\nfor i in range(64):\n    if os.fork() == 0:\n        time.sleep(30)\n        os._exit(0)\nprint('made 64')",
			check: func(t *testing.T, r Result) {
				if strings.Contains(r.Stdout, "made 64") {
					t.Error("64 processes under a limit of 16")
				}
			}},
		{name: "allocate 20 GB", src: "x = bytearray(20 << 30)\nprint(len(x))", lim: small, want: Memory},
		{name: "allocate and touch until refused", lim: small, want: Memory,
			src: "x = []\nwhile True:\n    x.append(b'x' * (32 << 20))"},
		{name: "catch MemoryError", lim: small, want: OK,
			src: "try:\n    bytearray(20 << 30)\nexcept MemoryError:\n    print('caught')",
			check: func(t *testing.T, r Result) {
				if r.Stdout != "caught\n" {
					t.Errorf("stdout %q", r.Stdout)
				}
			}},
		{name: "print 1 GB", lim: Limits{Wall: 10 * time.Second, Output: 1 << 20}, want: Output,
			src: "import sys\nc = 'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(c)",
			check: func(t *testing.T, r Result) {
				if n := len(r.Stdout) + len(r.Stderr); n > 1<<20 || !r.Truncated {
					t.Errorf("kept %d bytes, truncated %v; want at most %d and truncated", n, r.Truncated, 1<<20)
				}
				if r.Duration > 5*time.Second {
					t.Errorf("cut after %v", r.Duration)
				}
			}},
		{name: "read the database, /etc/shadow, the home and project directories", lim: small, want: Exit,
			src: fmt.Sprintf(`import os
got = []
for p in [%q, "/etc/shadow", "/etc/passwd", %q, %q]:
    try:
        got.append(open(p, "rb").read())
        print("GOT", p, got[-1])
    except OSError as e:
        print("DENIED", p, e)
for p in [%q]:
    try:
        with open(p, "r+b") as f:
            f.write(b"overwritten")
        print("WROTE", p)
    except OSError as e:
        print("DENIED", p, e)
    try:
        os.remove(p)
        print("REMOVED", p)
    except OSError as e:
        print("DENIED", p, e)
raise SystemExit(1 if not got else 0)
`, h.db, os.Getenv("HOME")+"/.bashrc", project, h.db),
			check: func(t *testing.T, r Result) {
				now, err := os.ReadFile(h.db)
				if err != nil || !bytes.Equal(now, h.dbBytes) {
					t.Errorf("database changed: %q, %v", now, err)
				}
				out := r.Stdout + r.Stderr
				if strings.Contains(out, h.secret) || strings.Contains(out, "GOT") || strings.Contains(out, "WROTE") || strings.Contains(out, "REMOVED") {
					t.Errorf("the program reached host files:\n%s", out)
				}
				if line, _, _ := strings.Cut(string(shadow), "\n"); line != "" && strings.Contains(out, line) {
					t.Errorf("/etc/shadow in the output")
				}
			}},
		{name: "read OPENAI_API_KEY", lim: small, want: OK,
			src: `import os, glob
print(dict(os.environ))
for p in ["/proc/self/environ", "/proc/1/environ"] + glob.glob("/proc/[0-9]*/environ"):
    try:
        print(p, open(p, "rb").read())
    except OSError as e:
        print(p, e)
`,
			check: func(t *testing.T, r Result) {
				if strings.Contains(r.Stdout+r.Stderr, h.secret) {
					t.Errorf("the secret reached the sandbox:\n%s", r.Stdout)
				}
				env, _, _ := strings.Cut(r.Stdout, "\n")
				for _, kv := range strings.Split(strings.Trim(env, "{}"), ", ") {
					k, _, _ := strings.Cut(kv, ":")
					switch k = strings.Trim(k, "'"); k {
					case "PATH", "HOME", "PWD", "LC_CTYPE", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE":
					default:
						t.Errorf("environment variable %s in the sandbox", k)
					}
				}
			}},
		{name: "connect to a listener on 127.0.0.1", lim: small, want: Exit,
			src: fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=2).sendall(b'hello')\nprint('connected')", h.port),
			check: func(t *testing.T, r Result) {
				time.Sleep(100 * time.Millisecond) // let a connection that was made be accepted
				if n := h.accepted.Load(); n != 0 || strings.Contains(r.Stdout, "connected") {
					t.Errorf("the listener accepted %d connections; stdout %q", n, r.Stdout)
				}
			}},
		{name: "write outside its directory", lim: small, want: OK,
			src: fmt.Sprintf(`import os
for p in [%q, "/usr/pwned", "/pwned", "/etc/pwned", "/work/../pwned", "/proc/pwned", "/dev/pwned"]:
    try:
        open(p, "w").write("pwned")
        print("WROTE", p)
    except OSError as e:
        print("DENIED", p, e)
open("/work/mine", "w").write("allowed")
print(open("/work/mine").read())
`, filepath.Join(h.dir, "pwned")),
			check: func(t *testing.T, r Result) {
				for _, p := range []string{filepath.Join(h.dir, "pwned"), "/usr/pwned", "/pwned", "/etc/pwned"} {
					if _, err := os.Stat(p); err == nil {
						os.Remove(p)
						t.Errorf("%s written on the host", p)
					}
				}
				if !strings.Contains(r.Stdout, "allowed") {
					t.Errorf("could not write its own directory: %s", r.Stdout)
				}
			}},
		{name: "a child that outlives the program", lim: small, want: OK,
			src: fmt.Sprintf(`import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", %q])
    os._exit(0)
print("parent done")
`, h.marker),
			check: func(t *testing.T, r Result) {
				// The orphan holds stdout: Run returning before WaitDelay
				// means every holder of the pipe is gone.
				if r.Duration > 1500*time.Millisecond {
					t.Errorf("Run took %v: something kept the output open", r.Duration)
				}
				if ps := processesWith(h.marker); len(ps) > 0 {
					t.Errorf("the orphan outlived the sandbox: %v", ps)
				}
			}},
		// kill(-1) reaches every process the caller may signal but
		// itself and its namespace's pid 1: here the program's own
		// children, neither its supervisor (which then reports the
		// program's end) nor the host.
		{name: "os.kill(-1, 9)", lim: small, want: OK,
			src: `import os, time
kids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
os.kill(-1, 9)
print("killed", [os.waitpid(k, 0)[1] for k in kids])
`,
			check: func(t *testing.T, r Result) {
				if err := h.sentinel.Process.Signal(syscall.Signal(0)); err != nil {
					t.Errorf("a host process died: %v", err)
				}
				if r.Stdout != "killed [9, 9, 9]\n" {
					t.Errorf("stdout %q, want its 3 children killed", r.Stdout)
				}
			}},
		{name: "descriptors beyond stdio", lim: small, want: OK,
			src: "import os\nprint(sorted(os.listdir('/proc/self/fd'), key=int))",
			check: func(t *testing.T, r Result) {
				// 3 is listdir's own.
				if r.Stdout != "['0', '1', '2', '3']\n" {
					t.Errorf("the program inherited descriptors: %s", r.Stdout)
				}
			}},
		{name: "a signal of its own", lim: small, want: Crash, signal: "SIGSEGV",
			src: "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"},
		{name: "an exception", lim: small, want: Exit,
			src: "assert 1 == 2, 'MemoryError is in this message, not in the exception'",
			check: func(t *testing.T, r Result) {
				if r.ExitCode != 1 {
					t.Errorf("exit code %d", r.ExitCode)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := b.Run(context.Background(), Program{Source: c.src, Limits: c.lim})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.want || (c.signal != "" && r.Signal != c.signal) {
				t.Errorf("status %s signal %q (%s), want %s %s\nstdout: %.300s\nstderr: %.600s", r.Status, r.Signal, r.Reason(), c.want, c.signal, r.Stdout, tailOf(r.Stderr, 600))
			}
			if c.want != OK && r.Reason() == "" {
				t.Error("a failure without a reason")
			}
			if c.check != nil {
				c.check(t, r)
			}
			if ps := processesOf(b.uids); len(ps) > 0 {
				t.Errorf("sandbox processes left on the host: %v", ps)
			}
		})
	}
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestNotRootOnHost: the sandbox's processes are not root on the host
// (as root, each sandbox runs as a uid of its own; otherwise as the
// user). Seen from the host, by the real uid of the program's process.
func TestNotRootOnHost(t *testing.T) {
	b := runner(t)
	marker := "reasonbench-uid-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var r Result
	go func() {
		var err error
		r, err = b.Run(ctx, Program{Source: fmt.Sprintf("import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', %q])", marker), Limits: Limits{Wall: 30 * time.Second}})
		done <- err
	}()
	uid := -1
	for deadline := time.Now().Add(15 * time.Second); uid < 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, p := range processesWith(marker) {
			pid, _, _ := strings.Cut(p, ":")
			st, err := os.ReadFile("/proc/" + pid + "/status")
			if err == nil {
				uid, _ = strconv.Atoi(statusFields(string(st))["Uid"])
			}
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v %+v, want context.Canceled", err, r)
	}
	switch {
	case uid < 0:
		t.Fatal("the program's process not found on the host")
	case uid == 0:
		t.Error("the sandbox is root on the host")
	case os.Geteuid() != 0 && uid != os.Geteuid():
		t.Errorf("host uid %d, want the user's %d", uid, os.Geteuid())
	}
	t.Logf("the program ran as host uid %d", uid)
}

// TestProgramFiles: main.py imports its Files, and hashing is seeded.
func TestProgramFiles(t *testing.T) {
	b := runner(t)
	p := Program{
		Source: "import sys\nfrom solution import f\nprint(f(int(sys.stdin.read())), hash('reasonbench'))",
		Files:  map[string]string{"solution.py": "def f(x):\n    return x + 1\n"},
		Stdin:  "41",
	}
	var outs []string
	for range 2 {
		r, err := b.Run(context.Background(), p)
		if err != nil || r.Status != OK {
			t.Fatalf("%v %+v", err, r)
		}
		outs = append(outs, r.Stdout)
	}
	if !strings.HasPrefix(outs[0], "42 ") || outs[0] != outs[1] {
		t.Errorf("outputs %q", outs)
	}
	for _, name := range []string{"../x.py", "/etc/x", "..", "", "main.py"} {
		if _, err := b.Run(context.Background(), Program{Source: "pass", Files: map[string]string{name: "x"}}); err == nil {
			t.Errorf("file name %q accepted", name)
		}
	}
}

// TestConcurrent runs 8 sandboxes at once: each sees only its own files
// and processes, and each may have its full process allowance while the
// others hold theirs.
func TestConcurrent(t *testing.T) {
	b := runner(t)
	const n = 8
	src := `import os, time, sys
me = sys.stdin.read()
open("/work/" + me, "w").write(me)
kids = []
for _ in range(6):
    pid = os.fork()
    if pid == 0:
        time.sleep(1)
        os._exit(0)
    kids.append(pid)
time.sleep(0.5)
print(sorted(os.listdir("/work")), len([p for p in os.listdir("/proc") if p.isdigit()]))
for k in kids:
    os.waitpid(k, 0)
`
	var wg sync.WaitGroup
	res := make([]Result, n)
	errs := make([]error, n)
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = b.Run(context.Background(), Program{Source: src, Stdin: fmt.Sprint("p", i), Limits: Limits{Procs: 8, Wall: 20 * time.Second}})
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var sum time.Duration
	for i, r := range res {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		// pid 1 (the launcher), the program and its 6 children.
		if want := fmt.Sprintf("['main.py', 'p%d'] 8\n", i); r.Status != OK || r.Stdout != want {
			t.Errorf("sandbox %d: %s %q, want ok %q; stderr %.300s", i, r.Status, r.Stdout, want, r.Stderr)
		}
		sum += r.Duration
	}
	if elapsed >= sum {
		t.Errorf("8 sandboxes took %v together, %v one after another: they did not overlap", elapsed, sum)
	}
	t.Logf("8 sandboxes in %v (%v summed)", elapsed, sum)
}

// TestCancel: the caller's context ending stops the program and is an
// error, not the program's timeout.
func TestCancel(t *testing.T) {
	b := runner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := b.Run(ctx, Program{Source: "import time\ntime.sleep(30)"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the context's", err)
	}
}

// TestUnavailable: no bubblewrap, or one that cannot make namespaces, or
// one that does not isolate, is ErrUnavailable in one line naming what to
// do, never a fall-back.
func TestUnavailable(t *testing.T) {
	if _, err := os.Stat(Python); err != nil {
		t.Skip("no " + Python)
	}
	// Not t.TempDir(): as root, bwrap runs as another uid, which must
	// reach the scripts.
	dir, err := os.MkdirTemp("", "sandbox-fake-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, path string
		want       []string
	}{
		{"missing", filepath.Join(dir, "nope"), []string{"apt-get install bubblewrap"}},
		{"no user namespaces", script("nons", "echo 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"),
			[]string{"could not start the program", "No permissions to creating new namespace", "unprivileged user namespaces"}},
		{"too old", script("old", "echo 'bwrap: Unknown option --disable-userns' >&2\nexit 1\n"),
			[]string{"could not start the program", "Unknown option --disable-userns", "bubblewrap 0.8.0 or later"}},
		{"fails to set up", script("setup", "echo 'bwrap: Can'\\''t find source path /tmp/x: Permission denied' >&2\nexit 1\n"),
			[]string{"could not start the program", "find source path"}},
		{"runs the program unsandboxed", script("fake", "d=$(mktemp -d)\nwhile [ \"$1\" != -- ]; do\n  if [ \"$1\" = --file ]; then eval \"cat <&$2\" > \"$d/$(basename \"$3\")\"; shift 2; fi\n  shift\ndone\nshift\ncd \"$d\"\nexec \"$@\"\n"),
			[]string{"without isolation", "not isolated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := newBwrap(context.Background(), c.path)
			if err == nil || b != nil {
				t.Fatalf("a sandbox from %s", c.path)
			}
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("%v does not wrap ErrUnavailable", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
		})
	}
	t.Run("not on PATH", func(t *testing.T) {
		t.Setenv("PATH", dir)
		_, err := NewBwrap(context.Background())
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
			t.Errorf("%v", err)
		}
	})
}

// BenchmarkStart is a sandbox's start-up cost: print(1) from nothing to
// its result.
func BenchmarkStart(b *testing.B) {
	r := runner(b)
	for b.Loop() {
		res, err := r.Run(context.Background(), Program{Source: "print(1)"})
		if err != nil || res.Status != OK {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
