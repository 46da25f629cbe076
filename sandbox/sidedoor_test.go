//go:build linux && (amd64 || arm64)

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// syscalls is a preamble for test programs that make system calls Python
// has no function for: call(name, *args) returns the result and errno.
const syscalls = `import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"x86_64": dict(io_uring_setup=425, unshare=272, clone=56, ptrace=101, keyctl=250, add_key=248),
      "aarch64": dict(io_uring_setup=425, unshare=97, clone=220, ptrace=117, keyctl=219, add_key=217)}[platform.machine()]
def call(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(NR[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, ctypes.get_errno()
`

// withoutCgroup is b as it runs where no memory cgroup can be had: the
// fallback of docs/sandbox.md.
func withoutCgroup(t *testing.T, b *Bwrap) *Bwrap {
	nb := *b
	nb.cg = nil
	var err error
	if nb.filter, err = seccompFilter(true); err != nil {
		t.Fatal(err)
	}
	return &nb
}

// TestMemoryBoundsTmpfs: what a program writes to /tmp, /dev/shm or a
// memfd is memory the host pays for; twice the memory limit must not fit.
// With a memory cgroup the kernel kills the writer (status memory);
// without one (the fallback), /tmp and /dev/shm are full at the limit and
// memfd_create is refused.
func TestMemoryBoundsTmpfs(t *testing.T) {
	b := runner(t)
	const limit = 128 << 20
	open := map[string]string{
		"/tmp":     `f = open("/tmp/big", "wb", buffering=0)`,
		"/dev/shm": `f = open("/dev/shm/big", "wb", buffering=0)`,
		"memfd":    `f = os.fdopen(os.memfd_create("big"), "wb", buffering=0)`,
	}
	modes := []struct {
		name string
		b    *Bwrap
	}{{"cgroup", b}, {"fallback", withoutCgroup(t, b)}}
	for _, m := range modes {
		for _, where := range []string{"/tmp", "/dev/shm", "memfd"} {
			t.Run(m.name+" "+where, func(t *testing.T) {
				if m.name == "cgroup" && !m.b.cg.boundsMemory() {
					t.Skip("no memory cgroup here (not root, none delegated)")
				}
				src := fmt.Sprintf("import os\n%s\nchunk = b'x' * (1 << 20)\nfor i in range(%d):\n    f.write(chunk)\nprint('wrote', i + 1, 'MiB')\n", open[where], 2*limit>>20)
				r, err := m.b.Run(context.Background(), Program{Source: src, Limits: Limits{Memory: limit, Wall: 30 * time.Second}})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("status %s (%s), stdout %q, stderr %s", r.Status, r.Reason(), r.Stdout, firstLine(lastLine(r.Stderr)))
				if r.Status == OK || strings.Contains(r.Stdout, "wrote") {
					t.Fatalf("%d MiB written to %s under a %d MiB memory limit", 2*limit>>20, where, limit>>20)
				}
				want := "No space left on device"
				if where == "memfd" {
					want = "Operation not permitted"
				}
				switch {
				case m.name == "cgroup" && r.Status != Memory:
					t.Errorf("status %s, want memory", r.Status)
				case m.name == "fallback" && (r.Status != Exit || !strings.Contains(r.Stderr, want)):
					t.Errorf("status %s, stderr %q; want exit with %q", r.Status, lastLine(r.Stderr), want)
				}
			})
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestWorkDirCapped: the working directory is memory of Limits.Disk
// (256 MiB by default), not the host's disk without a bound.
func TestWorkDirCapped(t *testing.T) {
	b := runner(t)
	cases := []struct {
		name  string
		disk  int64
		write int // MiB
	}{{"default", 0, 300}, {"Disk 16 MiB", 16 << 20, 32}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := fmt.Sprintf("f = open('/work/big', 'wb', buffering=0)\nchunk = b'x' * (1 << 20)\nfor i in range(%d):\n    f.write(chunk)\nprint('wrote', i + 1, 'MiB')\n", c.write)
			r, err := b.Run(context.Background(), Program{Source: src, Limits: Limits{Wall: 30 * time.Second, Disk: c.disk}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("status %s, stdout %q, stderr %s", r.Status, r.Stdout, lastLine(r.Stderr))
			if r.Status != Exit || strings.Contains(r.Stdout, "wrote") || !strings.Contains(r.Stderr, "No space left on device") {
				t.Errorf("%d MiB to /work: status %s, stdout %q; want exit for no space", c.write, r.Status, r.Stdout)
			}
		})
	}
	// Within the cap, the program's files are there and /work is its own.
	r, err := b.Run(context.Background(), Program{Source: "import os\nopen('/work/x', 'wb').write(b'y' * (15 << 20))\nprint(sorted(os.listdir('.')), os.path.getsize('x'))",
		Files: map[string]string{"a.txt": "a"}, Limits: Limits{Disk: 16 << 20}})
	if err != nil || r.Status != OK || r.Stdout != fmt.Sprintf("['a.txt', 'main.py', 'x'] %d\n", 15<<20) {
		t.Errorf("15 MiB under a 16 MiB cap: %v %s %q %s", err, r.Status, r.Stdout, lastLine(r.Stderr))
	}
}

// TestKilledBenchLeavesNothing: a bench SIGKILLed while a sandbox runs
// leaves no work directory on the host disk.
func TestKilledBenchLeavesNothing(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_HELPER") == "run" {
		b := runner(t)
		_, _ = b.Run(context.Background(), Program{Source: "import time\nprint('running', flush=True)\ntime.sleep(60)", Limits: Limits{Wall: time.Minute}})
		return
	}
	runner(t)
	// The helper's temp dir is its own, so what other processes on the
	// machine leave in the shared one does not count.
	tmp, err := os.MkdirTemp("", "sandbox-killed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil { // as root, bwrap runs as another uid
		t.Fatal(err)
	}
	marker := "reasonbench-killed-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBenchLeavesNothing$", "-test.v", marker)
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=run", "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper's sandbox runs once its program (python3 -s main.py) does.
	var up bool
	for deadline := time.Now().Add(20 * time.Second); !up && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		up = len(sandboxesOf(cmd.Process.Pid)) > 0
	}
	if !up {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the helper's sandbox did not start")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	time.Sleep(200 * time.Millisecond)
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("a SIGKILLed bench left %v in its TMPDIR (%v)", names, err)
	}
	// Its cgroups stay (no process of bench removed them); the next bench
	// to start sweeps them, and not a running bench's.
	b := runner(t)
	if b.cg == nil {
		return
	}
	ours, err := b.cg.create(64<<20, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.remove()
	var theirs []string
	for _, h := range []*hierarchy{b.cg.mem, b.cg.pids} {
		if h == nil {
			continue
		}
		g, _ := filepath.Glob(filepath.Join(h.dir, fmt.Sprintf("%s%d-*", cgroupPrefix, cmd.Process.Pid)))
		if len(g) == 0 {
			t.Fatalf("the killed bench's cgroup is not in %s to sweep", h.dir)
		}
		theirs = append(theirs, g...)
	}
	newCgroups()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var left []string
		for _, d := range theirs {
			if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
				left = append(left, d)
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v not swept", left)
		}
		newCgroups()
	}
	for _, d := range ours.dirs() {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a running bench's cgroup swept: %v", err)
		}
	}
}

// sandboxesOf lists the host pids of the programs (python3 -s main.py)
// running under the process pid.
func sandboxesOf(pid int) []int {
	var found []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.HasSuffix(string(cl), "-s\x00main.py\x00") {
			continue
		}
		for q := p; q > 1; {
			st, err := os.ReadFile("/proc/" + strconv.Itoa(q) + "/status")
			if err != nil {
				break
			}
			q, _ = strconv.Atoi(statusFields(string(st))["PPid"])
			if q == pid {
				found = append(found, p)
				break
			}
		}
	}
	return found
}

// joinKeyring is a host program that does what pam_keyinit does for a
// login or a systemd service: it joins a new session keyring, puts a
// canary key in it, and runs argv[2:] under it. bench, and so every
// thread of it, then possesses the canary.
const joinKeyring = syscalls + `import sys
r, e = call("keyctl", 1, b"reasonbench-test-session")
k, e2 = call("add_key", b"user", sys.argv[1].encode(), b"sk-canary-secret", 16, -3)
if r < 0 or k < 0:
    sys.exit("keyring: %d %d" % (e, e2))
os.execv(sys.argv[2], sys.argv[2:])
`

// TestKeyring: a sandbox has a session keyring of its own. bench runs
// (as a test binary) under a session keyring holding a canary key; a
// program must find the canary neither through keyctl nor in /proc/keys,
// and a key it adds must reach neither the host nor the next sandbox.
func TestKeyring(t *testing.T) {
	canary := os.Getenv("SANDBOX_TEST_CANARY")
	if os.Getenv("SANDBOX_TEST_HELPER") != "keyring" {
		runner(t)
		t.Run("as bench's user", func(t *testing.T) { keyringHelper(t, os.Args[0], nil) })
		if os.Geteuid() == 0 {
			// Not root, the sandbox is bench's own uid, which sees its
			// user's keys listed in /proc/keys.
			bin := binaryForNobody(t)
			t.Run("as nobody", func(t *testing.T) {
				keyringHelper(t, bin, nobody)
			})
		}
		return
	}
	b := runner(t)
	// The setup is real: bench itself finds the canary.
	if _, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", canary, 0); err != nil {
		t.Fatalf("bench does not possess the canary: %v", err)
	}
	planted := "planted-" + canary
	src := syscalls + fmt.Sprintf(`
KEY_SPEC_SESSION_KEYRING = -3
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
buf = ctypes.create_string_buffer(4096)
for name in [%q, %q]:
    found, e = call("keyctl", KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user", name.encode(), 0)
    print(name.split("-")[0], "FOUND" if found >= 0 else "absent", e)
    if found >= 0:
        n, e = call("keyctl", KEYCTL_READ, found, buf, 4096)
        print("read", buf.raw[:max(n, 0)])
try:
    keys = open("/proc/keys").read()
except OSError as x:
    keys = str(x)
print("/proc/keys", "LISTS" if " %s: " in keys else "clean", keys.count("\n"))
n, e = call("keyctl", KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, buf, 4096)
print("keyctl", "ALLOWED" if n >= 0 else "refused", e)
k, e = call("add_key", b"user", %q.encode(), b"from the sandbox", 16, KEY_SPEC_SESSION_KEYRING)
print("add_key", "ALLOWED" if k >= 0 else "refused", e)
`, canary, planted, canary, planted)
	// (A key a sandbox adds with keyctl allowed shows in /proc/keys of
	// the next sandbox of the same uid until the kernel collects it:
	// seccomp's refusal of add_key is what closes that.)
	// Seccomp refuses the keyring calls; the session keyring of its own
	// is tested apart, by a sandbox whose filter lets them through.
	keyed := *b
	var err error
	if keyed.filter, err = filterDenying(without(denied, unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		r, err := b.Run(context.Background(), Program{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("sandbox %d: %s %q %s", i, r.Status, r.Stdout, lastLine(r.Stderr))
		if r.Status != OK || !strings.Contains(r.Stdout, "add_key") {
			t.Fatalf("the program did not run to its end: %s", r.Status)
		}
		for _, bad := range []string{"FOUND", "sk-canary", "LISTS", "ALLOWED"} {
			if strings.Contains(r.Stdout, bad) {
				t.Errorf("sandbox %d: %s", i, bad)
			}
		}
		r, err = keyed.Run(context.Background(), Program{Source: src})
		t.Logf("sandbox %d, keyctl allowed: %s %q %s", i, r.Status, r.Stdout, lastLine(r.Stderr))
		if err != nil || r.Status != OK || !strings.Contains(r.Stdout, "add_key ALLOWED") {
			t.Fatalf("keyctl allowed: %v %s", err, r.Status)
		}
		for _, bad := range []string{"FOUND", "sk-canary", "LISTS"} {
			if strings.Contains(r.Stdout, bad) {
				t.Errorf("sandbox %d, keyctl allowed: %s", i, bad)
			}
		}
	}
	if id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", planted, 0); err == nil {
		t.Errorf("a key a sandbox added (%d) is in the host's session keyring", id)
	}
}

var nobody = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}

// binaryForNobody is a copy of the test binary that nobody may run (the
// build's own is in a directory of root's).
func binaryForNobody(t *testing.T) string {
	dir, err := os.MkdirTemp("", "sandbox-test-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "sandbox.test")
	if err := exec.Command("cp", os.Args[0], bin).Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// keyringHelper runs TestKeyring's checks in test binary bin, as cred,
// under a session keyring with a canary key.
func keyringHelper(t *testing.T, bin string, cred *syscall.Credential) {
	canary := "canary-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command(Python, "-c", joinKeyring, canary, bin, "-test.run=^TestKeyring$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=keyring", "SANDBOX_TEST_CANARY="+canary)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	t.Logf("under a session keyring with a canary:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestKeyring") {
		t.Errorf("%v", err)
	}
}

// TestClosedDoors: what a test program never needs is refused: io_uring,
// a nested user namespace, ptrace of the sandbox's pid 1, writing /dev,
// and /proc/1/cmdline names no host path.
func TestClosedDoors(t *testing.T) {
	// A temp dir that names itself, so any host temp path shows.
	tmp, err := os.MkdirTemp("", "hostpath-marker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	b := runner(t)
	cases := []struct{ name, src string }{
		{"io_uring_setup", `params = ctypes.create_string_buffer(120)
r, e = call("io_uring_setup", 8, params)
refused = r < 0`},
		// EPERM: seccomp's refusal; --disable-userns is tested apart.
		{"unshare(CLONE_NEWUSER)", `r, e = call("unshare", 0x10000000)
refused = r < 0 and e == 1`},
		{"clone(CLONE_NEWUSER)", `r, e = call("clone", 0x10000000 | 17, 0, 0, 0, 0)
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
refused = r < 0 and e == 1`},
		{"ptrace(PTRACE_ATTACH, 1)", `r, e = call("ptrace", 16, 1, 0, 0)
refused = r < 0`},
		{"write /dev", `e = None
try:
    open("/dev/pwned", "w").write("x")
    refused = False
except OSError as x:
    refused, e = True, x`},
		{"mkdir /dev", `e = None
try:
    os.mkdir("/dev/pwned")
    refused = False
except OSError as x:
    refused, e = True, x`},
		{"/proc/1/cmdline", fmt.Sprintf(`e = open("/proc/1/cmdline", "rb").read()
refused = %q.encode() not in e`, filepath.Base(tmp))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := syscalls + c.src + "\nprint('refused' if refused else 'ALLOWED', e)\n"
			r, err := b.Run(context.Background(), Program{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != OK || !strings.HasPrefix(r.Stdout, "refused") {
				t.Errorf("%s: %s %q %s", c.name, r.Status, r.Stdout, firstLine(tailOf(r.Stderr, 300)))
			}
			t.Logf("%s", strings.TrimSpace(r.Stdout))
		})
	}
	// The second layer: with seccomp letting unshare through, bubblewrap's
	// --disable-userns still refuses a user namespace.
	nb := *b
	var err2 error
	if nb.filter, err2 = filterDenying(without(denied, unix.SYS_UNSHARE)); err2 != nil {
		t.Fatal(err2)
	}
	r, err := nb.Run(context.Background(), Program{Source: syscalls + `r, e = call("unshare", 0x10000000)
print("refused" if r < 0 else "ALLOWED", e)`})
	if err != nil || r.Status != OK || !strings.HasPrefix(r.Stdout, "refused") {
		t.Errorf("unshare(CLONE_NEWUSER) without seccomp's rule: %v %s %q", err, r.Status, r.Stdout)
	}
}

// without is calls less some.
func without(calls []uintptr, some ...uintptr) []uintptr {
	var out []uintptr
	for _, c := range calls {
		if !slices.Contains(some, c) {
			out = append(out, c)
		}
	}
	return out
}
