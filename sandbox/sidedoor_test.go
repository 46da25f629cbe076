//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// TestMemoryBoundsTmpfs: what a program writes to /tmp, /dev/shm or a
// memfd is memory the host pays for; twice the memory limit must not fit.
func TestMemoryBoundsTmpfs(t *testing.T) {
	b := runner(t)
	const limit = 128 << 20
	open := map[string]string{
		"/tmp":     `f = open("/tmp/big", "wb", buffering=0)`,
		"/dev/shm": `f = open("/dev/shm/big", "wb", buffering=0)`,
		"memfd":    `f = os.fdopen(os.memfd_create("big"), "wb", buffering=0)`,
	}
	for _, where := range []string{"/tmp", "/dev/shm", "memfd"} {
		t.Run(where, func(t *testing.T) {
			src := fmt.Sprintf("import os\n%s\nchunk = b'x' * (1 << 20)\nfor i in range(%d):\n    f.write(chunk)\nprint('wrote', i + 1, 'MiB')\n", open[where], 2*limit>>20)
			r, err := b.Run(context.Background(), Program{Source: src, Limits: Limits{Memory: limit, Wall: 30 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: status %s (%s), stdout %q, stderr %s", where, r.Status, r.Reason(), r.Stdout, firstLine(tailOf(r.Stderr, 300)))
			if r.Status == OK || strings.Contains(r.Stdout, "wrote") {
				t.Errorf("%d MiB written to %s under a %d MiB memory limit", 2*limit>>20, where, limit>>20)
			}
		})
	}
}

// TestWorkDirCapped: the working directory is not the host's disk without
// a bound.
func TestWorkDirCapped(t *testing.T) {
	b := runner(t)
	src := "f = open('/work/big', 'wb', buffering=0)\nchunk = b'x' * (1 << 20)\nfor i in range(300):\n    f.write(chunk)\nprint('wrote', i + 1, 'MiB')\n"
	r, err := b.Run(context.Background(), Program{Source: src, Limits: Limits{Wall: 30 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %s, stdout %q, stderr %s", r.Status, r.Stdout, firstLine(tailOf(r.Stderr, 300)))
	if r.Status == OK || strings.Contains(r.Stdout, "wrote") {
		t.Errorf("300 MiB written to /work under the default limits")
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
	before := leftovers(t)
	marker := "reasonbench-killed-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBenchLeavesNothing$", "-test.v", marker)
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=run")
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
	var left []string
	for d := range leftovers(t) {
		if !before[d] {
			left = append(left, d)
			os.RemoveAll(d)
		}
	}
	if len(left) > 0 {
		t.Errorf("a SIGKILLed bench left %v on the host", left)
	}
}

// leftovers lists the sandbox work directories in the host's temp dir.
func leftovers(t *testing.T) map[string]bool {
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "reasonbench-sandbox-*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range m {
		seen[d] = true
	}
	return seen
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

// TestKeyring: a sandbox has a session keyring of its own. The test joins
// a fresh session keyring holding a canary key (bench under pam_keyinit or
// a systemd service has one); a program must neither find the canary nor
// leave a key where the host or the next sandbox finds it.
func TestKeyring(t *testing.T) {
	b := runner(t)
	// Keyrings belong to a thread's credentials: keep this goroutine on
	// one thread, which bubblewrap is forked from, and let the thread
	// end with the test (no UnlockOSThread) so no other test inherits it.
	runtime.LockOSThread()
	if _, err := unix.KeyctlJoinSessionKeyring("reasonbench-test"); err != nil {
		t.Skipf("no session keyring: %v", err)
	}
	canary := "canary-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := unix.AddKey("user", canary, []byte("sk-canary-secret"), unix.KEY_SPEC_SESSION_KEYRING); err != nil {
		t.Fatal(err)
	}
	planted := "planted-" + canary
	src := syscalls + fmt.Sprintf(`
KEY_SPEC_SESSION_KEYRING = -3
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
buf = ctypes.create_string_buffer(4096)
found, e = call("keyctl", KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user", %q.encode(), 0)
print("canary", "FOUND" if found >= 0 else "absent", e)
if found >= 0:
    n, e = call("keyctl", KEYCTL_READ, found, buf, 4096)
    print("read", buf.raw[:max(n, 0)])
n, e = call("keyctl", KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, buf, 4096)
print("session keyring", "READ" if n >= 0 else "refused", e)
k, e = call("add_key", b"user", %q.encode(), b"from the sandbox", 16, KEY_SPEC_SESSION_KEYRING)
print("add_key", "ADDED" if k >= 0 else "refused", e)
`, canary, planted)
	for i := range 2 {
		r, err := b.Run(context.Background(), Program{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("sandbox %d: %s %q %s", i, r.Status, r.Stdout, firstLine(tailOf(r.Stderr, 300)))
		if r.Status != OK || !strings.Contains(r.Stdout, "add_key") {
			t.Fatalf("the program did not run to its end: %s", r.Status)
		}
		for _, bad := range []string{"FOUND", "sk-canary", "READ"} {
			if strings.Contains(r.Stdout, bad) {
				t.Errorf("sandbox %d reached the host's session keyring: %q", i, r.Stdout)
				break
			}
		}
		if i == 1 && strings.Contains(r.Stdout, "planted") {
			t.Errorf("the second sandbox found the first one's key")
		}
	}
	if id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", planted, 0); err == nil {
		t.Errorf("a key a sandbox added (%d) is in the host's session keyring", id)
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
		{"unshare(CLONE_NEWUSER)", `r, e = call("unshare", 0x10000000)
refused = r < 0`},
		{"clone(CLONE_NEWUSER)", `r, e = call("clone", 0x10000000 | 17, 0, 0, 0, 0)
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
refused = r < 0`},
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
	_ = syscall.Getpid
}
