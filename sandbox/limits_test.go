//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCPULimitRoundsUp: RLIMIT_CPU is whole seconds; a limit of 1.5 s
// allows 1.5 s (the rlimit is 2 s), and a loop still ends as cpu.
func TestCPULimitRoundsUp(t *testing.T) {
	b := runner(t)
	lim := Limits{CPU: 1500 * time.Millisecond, Wall: 20 * time.Second}
	burn := "import time\nwhile time.process_time() < 1.4:\n    pass\nprint('burnt', round(time.process_time(), 2))"
	r, err := b.Run(context.Background(), Program{Source: burn, Limits: lim})
	if err != nil || r.Status != OK || !strings.HasPrefix(r.Stdout, "burnt") {
		t.Errorf("1.4 s of CPU under a 1.5 s limit: %v %s %q", err, r.Status, r.Stdout)
	}
	r, err = b.Run(context.Background(), Program{Source: "while True: pass", Limits: lim})
	if err != nil || r.Status != CPU {
		t.Errorf("a loop under a 1.5 s limit: %v %s, want cpu", err, r.Status)
	}
}

// TestOutputLimitExact: exactly Limits.Output bytes of stdout and stderr
// together are kept whole; one more is the output limit.
func TestOutputLimitExact(t *testing.T) {
	b := runner(t)
	const max = 10000
	for _, extra := range []int{0, 1} {
		src := fmt.Sprintf("import sys\nsys.stderr.write('e' * 4000)\nsys.stderr.flush()\nsys.stdout.write('o' * %d)", max-4000+extra)
		r, err := b.Run(context.Background(), Program{Source: src, Limits: Limits{Output: max}})
		if err != nil {
			t.Fatal(err)
		}
		kept := len(r.Stdout) + len(r.Stderr)
		want, cut := OK, false
		if extra > 0 {
			want, cut = Output, true
		}
		if r.Status != want || r.Truncated != cut || kept != max {
			t.Errorf("%d bytes under a limit of %d: %s truncated %v, kept %d; want %s truncated %v, kept %d", max+extra, max, r.Status, r.Truncated, kept, want, cut, max)
		}
	}
}

// TestMountFlags reads the sandbox's mount table: root's uid mapping hides
// a writable /usr from a write test (the sandbox cannot write root's files
// anyway), so the flags themselves are checked.
func TestMountFlags(t *testing.T) {
	b := runner(t)
	r, err := b.Run(context.Background(), Program{Source: "print(open('/proc/self/mountinfo').read())", Limits: Limits{Disk: 32 << 20}})
	if err != nil || r.Status != OK {
		t.Fatalf("%v %s %s", err, r.Status, r.Stderr)
	}
	type mount struct{ opts, fstype, super string }
	mounts := map[string]mount{}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		pre, post, _ := strings.Cut(l, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) >= 6 && len(g) >= 3 {
			mounts[f[4]] = mount{f[5], g[0], g[2]} // the last mount at a point wins
		}
	}
	has := func(list, o string) bool {
		for _, x := range strings.Split(list, ",") {
			if x == o {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		at, flag, fstype, size string
	}{
		{"/usr", "ro", "", ""},
		{"/dev", "ro", "tmpfs", ""},
		{"/work", "rw", "tmpfs", "size=32768k"},
		{"/tmp", "rw", "tmpfs", "size=32768k"},
		{"/dev/shm", "rw", "tmpfs", "size=32768k"},
	} {
		m, ok := mounts[c.at]
		switch {
		case !ok:
			t.Errorf("%s not mounted:\n%s", c.at, r.Stdout)
		case !has(m.opts, c.flag) || !has(m.opts, "nosuid"):
			t.Errorf("%s mounted %s, want %s,nosuid", c.at, m.opts, c.flag)
		case c.fstype != "" && m.fstype != c.fstype:
			t.Errorf("%s is %s, want %s", c.at, m.fstype, c.fstype)
		case c.size != "" && !has(m.super, c.size):
			t.Errorf("%s: %s, want %s", c.at, m.super, c.size)
		}
	}
}

// TestUIDPool: a pool never hands out a uid a running sandbox has, reuses
// what is returned, and two bench processes start far apart.
func TestUIDPool(t *testing.T) {
	p := newUIDPool(4242)
	const n = 200
	got := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = p.get() }()
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, u := range got {
		if seen[u] {
			t.Fatalf("uid %d handed out twice", u)
		}
		seen[u] = true
		if u < uidBase || u == 0 {
			t.Errorf("uid %d below %d", u, uidBase)
		}
	}
	p.put(got[7])
	if u := p.get(); u != got[7] {
		t.Errorf("after put(%d), get gave %d, want it reused", got[7], u)
	}
	if u := p.get(); seen[u] {
		t.Errorf("uid %d of a running sandbox handed out again", u)
	}
	if q := newUIDPool(4243); q.get() == newUIDPool(4242).get() {
		t.Error("two bench processes start at the same uid")
	}
}

// TestUIDPerSandbox: as root, sandboxes running at once are different
// host uids, seen from the host.
func TestUIDPerSandbox(t *testing.T) {
	b := runner(t)
	if b.uids == nil {
		t.Skip("not root: every sandbox runs as the user")
	}
	marker := "reasonbench-uids-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 3
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := b.Run(ctx, Program{Source: fmt.Sprintf("import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', %q])", marker), Limits: Limits{Wall: 30 * time.Second}})
			errs <- err
		}()
	}
	uids := map[string]bool{}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ps := processesWith(marker)
		if len(ps) < n {
			continue
		}
		for _, p := range ps {
			pid, _, _ := strings.Cut(p, ":")
			if st, err := os.ReadFile("/proc/" + pid + "/status"); err == nil {
				uids[statusFields(string(st))["Uid"]] = true
			}
		}
		break
	}
	cancel()
	for range n {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	}
	if len(uids) != n {
		t.Errorf("%d sandboxes at once ran as host uids %v, want %d different", n, uids, n)
	}
}

// TestOrdinaryPrograms: what a test program may use still works under the
// seccomp filter and the read-only /dev: threads (clone3 answers ENOSYS,
// the C library falls back to clone), subprocesses, a process pool (its
// semaphores live in /dev/shm), temporary files, /dev/null and urandom.
func TestOrdinaryPrograms(t *testing.T) {
	b := runner(t)
	src := `import threading, subprocess, tempfile, os, multiprocessing, sys
out = []
th = threading.Thread(target=lambda: out.append("thread"))
th.start(); th.join()
out.append(subprocess.run([sys.executable, "-c", "print('child')"], capture_output=True, text=True).stdout.strip())
with multiprocessing.Pool(2) as p:
    out.append(sum(p.map(abs, [-1, -2, 3])))
with tempfile.NamedTemporaryFile() as f:
    f.write(b"x"); f.flush(); out.append(os.path.dirname(f.name))
open("/dev/null", "w").write("x")
out.append(len(os.urandom(8)))
print(out)
`
	r, err := b.Run(context.Background(), Program{Source: src, Limits: Limits{Wall: 20 * time.Second}})
	if want := "['thread', 'child', 6, '/tmp', 8]\n"; err != nil || r.Status != OK || r.Stdout != want {
		t.Errorf("%v %s %q, want %q\n%s", err, r.Status, r.Stdout, want, tailOf(r.Stderr, 600))
	}
}

// TestCgroupOwner: only names of the form bench gives its cgroups are
// ever swept, and their owner is read back exactly.
func TestCgroupOwner(t *testing.T) {
	for _, c := range []struct {
		name  string
		pid   int
		start string
		ok    bool
	}{
		{"reasonbench-123-456789-1", 123, "456789", true},
		{"reasonbench-123-456789", 0, "", false},
		{"reasonbench-x-456789-1", 0, "", false},
		{"reasonbench-0-456789-1", 0, "", false},
		{"reasonbench-123-45a-1", 0, "", false},
		{"other-123-456789-1", 0, "", false},
		{"reasonbench-123-456789-1-2", 0, "", false},
	} {
		pid, start, ok := cgroupOwner(c.name)
		if pid != c.pid || start != c.start || ok != c.ok {
			t.Errorf("cgroupOwner(%q) = %d %q %v, want %d %q %v", c.name, pid, start, ok, c.pid, c.start, c.ok)
		}
	}
}

// TestTwoRunnersCgroupsApart: two runners of one process (two runs at
// once in one bench, or tests in parallel) never name a sandbox's cgroup
// alike; each runner counting its own sandboxes did (issue 34: "mkdir
// .../reasonbench-<pid>-<start>-2: file exists").
func TestTwoRunnersCgroupsApart(t *testing.T) {
	a, b := newCgroups(), newCgroups()
	if a == nil || b == nil {
		t.Skip("no cgroup this process may make cgroups in")
	}
	for range 3 {
		ga, err := a.create(64<<20, 8)
		if err != nil {
			t.Fatal(err)
		}
		defer ga.remove()
		gb, err := b.create(64<<20, 8)
		if err != nil {
			t.Fatalf("the second runner's cgroup beside %v: %v", ga.dirs(), err)
		}
		defer gb.remove()
	}
}
