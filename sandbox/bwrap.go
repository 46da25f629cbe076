//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Bwrap runs programs under bubblewrap: new user, PID, network, IPC, UTS
// and cgroup namespaces (and no further user namespace), a read-only view
// of /usr only (no /etc, no home, no project), a read-only /dev, a private
// in-memory /work as the working directory and /tmp and /dev/shm, each of
// at most Limits.Disk, an empty environment, a session keyring of its own,
// a seccomp filter (seccomp.go), rlimits on CPU, memory and processes
// on every process in it, its supervisor's too, and memory and pids
// cgroups bounding the whole sandbox where they can be had (cgroup.go;
// docs/sandbox.md says what stands in without them). When bench runs as
// root, bubblewrap itself is started as an unprivileged uid of its own
// (see uids), so the sandbox is nobody on the host either.
type Bwrap struct {
	path   string // the bwrap binary
	uids   *uidPool
	cg     *cgroups // nil: no cgroup here
	filter []byte   // the seccomp program

	// reachable leaves the supervisor dumpable, within the program's
	// reach: for tests only, which check what bounds a supervisor taken
	// over (its limits, the cgroups) with the first wall removed.
	reachable bool
}

// NewBwrap finds bubblewrap and checks that it can start a sandbox here.
// Every failure wraps ErrUnavailable and is one line naming what to do;
// there is no fall-back to running a program unsandboxed.
func NewBwrap(ctx context.Context) (*Bwrap, error) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("%w: bubblewrap (bwrap) not found on PATH: install the Debian package bubblewrap (apt-get install bubblewrap, or scripts/install-sandbox.sh)", ErrUnavailable)
	}
	return newBwrap(ctx, path)
}

// newBwrap is NewBwrap with the bwrap binary named, so that tests can
// point it at a bwrap that fails.
func newBwrap(ctx context.Context, path string) (*Bwrap, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: bubblewrap (%s) not found: install the Debian package bubblewrap (apt-get install bubblewrap)", ErrUnavailable, path)
	}
	if _, err := os.Stat(Python); err != nil {
		return nil, fmt.Errorf("%w: %s not found: install the Debian package python3 (apt-get install python3)", ErrUnavailable, Python)
	}
	b := &Bwrap{path: path, cg: newCgroups()}
	if os.Geteuid() == 0 {
		b.uids = newUIDPool(os.Getpid())
	}
	var err error
	if b.filter, err = seccompFilter(!b.cg.boundsMemory()); err != nil {
		return nil, err
	}
	var src string
	src, err = probeSource()
	if err != nil {
		return nil, err
	}
	const needs = "it needs unprivileged user namespaces (sysctl user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1 where it exists)"
	res, err := b.Run(ctx, Program{Source: src, Limits: Limits{Wall: 20 * time.Second}})
	if errors.Is(err, ErrUnavailable) && strings.Contains(err.Error(), "Unknown option") {
		// --disable-userns and --size came with bubblewrap 0.8.0.
		return nil, fmt.Errorf("%w; it needs bubblewrap 0.8.0 or later (Debian 12's): install a newer bubblewrap", err)
	}
	if errors.Is(err, ErrUnavailable) {
		return nil, fmt.Errorf("%w; %s", err, needs)
	}
	if err != nil {
		return nil, err
	}
	if res.Status != OK || res.Stdout != "ok\n" {
		why := res.Reason()
		if res.Status == OK {
			why = "the probe ran without isolation"
		}
		return nil, fmt.Errorf("%w: bubblewrap cannot start a sandbox here (%s: %s); %s", ErrUnavailable, why, firstLine(strings.TrimSpace(res.Stderr)+"\n"+res.Stdout), needs)
	}
	return b, nil
}

// probe says ok only from inside a sandbox: namespaces (network, PID,
// user, mount, IPC, UTS) other than bench's own, nobody, no /etc, and
// loopback as the only network interface. A "bwrap" that ran the program
// some other way, or a bwrap that shares a namespace, fails it.
const probe = `import os, socket
host = %s
shared = [n for n, v in host.items() if os.readlink("/proc/self/ns/" + n) == v]
names = [n for _, n in socket.if_nameindex()]
if not shared and os.getuid() == 65534 and not os.path.exists("/etc") and names == ["lo"]:
    print("ok")
else:
    print("not isolated: shared namespaces", shared, "uid", os.getuid(), "interfaces", names)
`

// probeSource is probe with bench's own namespaces filled in.
func probeSource() (string, error) {
	var host []string
	for _, n := range []string{"net", "pid", "user", "mnt", "ipc", "uts"} {
		v, err := os.Readlink("/proc/self/ns/" + n)
		if err != nil {
			return "", fmt.Errorf("%w: namespaces: %v", ErrUnavailable, err)
		}
		host = append(host, strconv.Quote(n)+": "+strconv.Quote(v))
	}
	return fmt.Sprintf(probe, "{"+strings.Join(host, ", ")+"}"), nil
}

// launcher is the sandbox's supervisor and its only process besides the
// program's: bubblewrap execs it as the PID namespace's pid 1 (--as-pid-1;
// no init of bubblewrap's own stays in the sandbox). Before the program
// exists it makes itself not dumpable, so that no process of its uid
// (the program's) may open its /proc/1/mem, list or open its descriptors
// (the report) or read its environment; it takes the program's limits
// itself (CPU, address space, processes: rlimits are per process, and an
// unlimited supervisor would be a way around them); and, as pid 1, it
// cannot be signalled from inside the namespace except by the signals it
// handles (SIGALRM, which it ignores but at its deadline).
//
// It forks the program with those limits, reaps every orphan the
// namespace hands it, and when the program ends reports how on fd 3+k,
// a pipe the program never holds: the exact wait status (bubblewrap's
// own exit code folds a signal into 128+n) and the program's CPU time (a
// SIGKILL at the hard CPU limit is then told from any other SIGKILL).
// Its exit ends the namespace: the kernel kills every process left in it.
// The CPU soft limit sends the program SIGXCPU; the hard limit, a second
// later, SIGKILL for a program that ignores it.
//
// The wall limit is bench's to keep; the launcher keeps it too, a second
// later, for a bench that cannot (stopped, hung): it then reports
// "wall" and exits, and the sandbox ends with it.
const launcher = `import ctypes, os, resource, signal, sys, time
cpu, mem, nproc, report, wall, dumpable = (int(a) for a in sys.argv[1:7])
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
if libc.prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0) != 0:
    os.write(2, b"sandbox launcher: prctl: errno %d\n" % ctypes.get_errno())
    os._exit(125)
signal.signal(signal.SIGINT, signal.SIG_DFL)  # as pid 1: ignored when sent from inside
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
os.set_inheritable(report, False)
os.closerange(report + 1, 1024)
deadline = time.monotonic() + wall / 1e3
def backstop(signum, frame):
    if time.monotonic() >= deadline:  # not a SIGALRM the program sent
        os.write(report, b"wall\n")
        os._exit(128 + signal.SIGKILL)
signal.signal(signal.SIGALRM, backstop)
signal.setitimer(signal.ITIMER_REAL, wall / 1e3)
pid = os.fork()
if pid == 0:
    try:
        # Its own /proc/self files are its uid's again (oom_score_adj);
        # exec would make it dumpable anyway.
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")  # the program, not its supervisor, is what the OOM killer takes
        os.execv(sys.argv[7], sys.argv[7:])
    except BaseException as e:
        os.write(2, b"sandbox launcher: %s\n" % repr(e).encode())
    os._exit(126)
while True:
    child, status, ru = os.wait4(-1, 0)
    if child == pid:
        break
os.write(report, b"%d %d\n" % (status, int((ru.ru_utime + ru.ru_stime) * 1e9)))
if os.WIFSIGNALED(status):
    os._exit(128 + os.WTERMSIG(status))
os._exit(os.WEXITSTATUS(status))
`

// supervised is the number of the sandbox's own processes counted against
// its process limits besides the program's: the launcher.
const supervised = 1

// backstop is how long after the wall limit the launcher ends the
// sandbox by itself, when bench has not.
const backstop = time.Second

// Run runs p in a fresh sandbox. The program's failures (a limit, an exit
// code, a signal) are its Result; an error means the sandbox could not run
// it (ErrUnavailable) or ctx ended.
func (b *Bwrap) Run(ctx context.Context, p Program) (Result, error) {
	if p.Peer != nil {
		return b.runPair(ctx, p)
	}
	return b.run(ctx, p, nil)
}

// Start starts p as a session (session.go) in a sandbox of its own.
func (b *Bwrap) Start(ctx context.Context, p Program) (*Session, error) {
	return startSession(ctx, p, b.run)
}

// run is Run with conn passed to the program as file descriptors 3, 4,
// ...; run closes them once the sandbox has them (pair.go).
func (b *Bwrap) run(ctx context.Context, p Program, conn []*os.File) (Result, error) {
	defer closeAll(conn)
	lim := p.Limits.WithDefaults()
	files, err := programFiles(p)
	if err != nil {
		return Result{}, err
	}
	uid, gid := os.Getuid(), os.Getgid()
	if b.uids != nil {
		slot := b.uids.get()
		defer b.uids.put(slot)
		uid, gid = slot, slot
	}
	var cg *cgroup
	if b.cg != nil {
		if cg, err = b.cg.create(lim.Memory, lim.Procs+supervised); err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		defer cg.remove()
	}

	// Descriptors: first conn's (3, 4, ...; the launcher closes every
	// descriptor above its report's, so they stay the program's), then,
	// from n = 3+len(conn): n the launcher's report, n+1 bwrap's info, n+2
	// the block that holds the sandbox until it is in its cgroup, n+3 the
	// seccomp filter, then empty files over /proc/keys and /proc/key-users
	// and the program's files, copied into /work by bwrap (no host
	// directory, so nothing on the host disk, nothing left behind by a
	// killed bench, and no host path in the sandbox's pid 1's argv).
	var keep, owned []*os.File
	defer func() {
		for _, f := range owned {
			f.Close()
		}
	}()
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		if err == nil {
			owned = append(owned, r, w)
		}
		return r, w
	}
	rep, repw := pipe()
	info, infow := pipe()
	blockr, block := pipe()
	filter, filterw := pipe()
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	if _, err := filterw.Write(b.filter); err != nil { // a few hundred bytes: the pipe holds them
		return Result{}, fmt.Errorf("sandbox: seccomp filter: %w", err)
	}
	filterw.Close()
	keep = append(append(keep, conn...), repw, infow, blockr, filter)
	n := 3 + len(conn)
	// fd passes text to bwrap as a descriptor of its own.
	fd := func(text string) (string, error) {
		f, err := memFile(text)
		if err != nil {
			return "", err
		}
		owned = append(owned, f)
		keep = append(keep, f)
		return strconv.Itoa(2 + len(keep)), nil
	}
	keys, err := fd("")
	if err != nil {
		return Result{}, err
	}
	keyUsers, err := fd("")
	if err != nil {
		return Result{}, err
	}
	disk := strconv.FormatInt(min(lim.Disk, lim.Memory), 10)
	dumpable := "0"
	if b.reachable {
		dumpable = "1"
	}
	cpu := int((lim.CPU + time.Second - 1) / time.Second)
	args := []string{
		"--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1",
		"--info-fd", strconv.Itoa(n + 1), "--block-fd", strconv.Itoa(n + 2), "--seccomp", strconv.Itoa(n + 3),
		"--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
		"--ro-bind", "/usr", "/usr",
		"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
		"--proc", "/proc",
		// Empty files over /proc/keys and /proc/key-users: keys of the
		// user bench runs as (which the sandbox is when not root) are
		// listed there by description to any process of that uid.
		"--ro-bind-data", keys, "/proc/keys", "--ro-bind-data", keyUsers, "/proc/key-users",
		"--dev", "/dev", "--size", disk, "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
		"--size", disk, "--tmpfs", "/tmp", "--size", disk, "--tmpfs", "/work",
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		n, err := fd(files[name])
		if err != nil {
			return Result{}, err
		}
		args = append(args, "--file", n, "/work/"+name)
	}
	args = append(args,
		"--chdir", "/work",
		"--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/work",
		"--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "PYTHONHASHSEED", "0",
		"--", Python, "-I", "-S", "-c", launcher,
		strconv.Itoa(cpu), strconv.FormatInt(lim.Memory, 10), strconv.Itoa(lim.Procs+supervised), strconv.Itoa(n),
		strconv.FormatInt((lim.Wall+backstop).Milliseconds(), 10), dumpable,
		// -s, not -I: -I would drop /work from sys.path (so main.py could
		// not import its Files) and ignore PYTHONHASHSEED; the environment
		// is ours anyway.
		Python, "-s", "main.py",
	)
	wall, cancel := context.WithTimeout(ctx, lim.Wall)
	defer cancel()
	cmd := exec.Command(b.path, args...)
	// Empty, not only --clearenv: bubblewrap's pid 1 is a fork of bwrap
	// without exec, so the sandbox can read bwrap's environment in
	// /proc/1/environ.
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.Stdin = strings.NewReader(p.Stdin)
	out := &capped{max: lim.Output, over: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out.stream(0), out.stream(1)
	cmd.ExtraFiles = keep
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if b.uids != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	}
	// Killing bwrap kills the sandbox (--die-with-parent, and pid 1 of the
	// PID namespace taking every process in it along), which closes the
	// output pipes; WaitDelay only guards against a pipe held elsewhere.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	release, err := startIsolated(cmd)
	if err != nil {
		return Result{}, fmt.Errorf("%w: start bubblewrap: %v", ErrUnavailable, err)
	}
	defer release()
	for _, f := range keep {
		f.Close() // the child's copies are what counts now
	}
	pid1 := sandboxInit(info)
	if cg != nil && pid1.pid != 0 {
		// bwrap's pid 1 waits on the block until it is in the cgroups;
		// then it execs the launcher, and the program it forks is in
		// them too.
		if err := cg.add(pid1.pid); err != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			_ = pid1.gone()
			return Result{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	_, _ = block.Write([]byte{1})
	block.Close()
	report := make(chan []byte, 1)
	go func() {
		// At most a few reports' worth; only the launcher holds the
		// pipe, which the program cannot reach (not dumpable, its
		// /proc/1/fd closed to it).
		buf, _ := io.ReadAll(io.LimitReader(rep, 4096))
		report <- buf
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var limit Status
	var werr error
	select {
	case werr = <-done:
	case <-wall.Done():
		limit = Timeout
	case <-out.over:
		limit = Output
	}
	if limit != "" {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr = <-done
	}
	// bwrap returns once the launcher, pid 1, has ended, or when it was
	// killed at a limit: pid 1 then dies of --die-with-parent's signal,
	// the kernel killing what is left of its PID namespace as it exits.
	// Run returns once that is done, so nothing of the sandbox outlives
	// it. Then no process holds the report pipe, and its reader has all
	// of it.
	if err := pid1.gone(); err != nil {
		return Result{}, err
	}
	res := Result{Duration: time.Since(start), Truncated: out.truncated()}
	res.Stdout, res.Stderr = out.text(0), out.text(1)
	code := 0
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			// bwrap itself was killed: by us at a limit, or from outside.
			code = 128 + int(ws.Signal())
		} else {
			code = ws.ExitStatus()
		}
	default:
		return Result{}, fmt.Errorf("sandbox: wait: %w", werr)
	}
	if limit != "" {
		res.Status = limit
	} else {
		var rb []byte
		select {
		case rb = <-report:
		case <-time.After(2 * time.Second): // a pipe held by something else: no report
		}
		rp := parseReport(rb)
		if rp == nil && code > 0 && code < 128 {
			// The launcher exits with a code only after reporting, so
			// bwrap failed to set the sandbox up (or Python to start):
			// the sandbox's failure, not the program's.
			return Result{}, fmt.Errorf("%w: bubblewrap could not start the program (exit code %d: %s)", ErrUnavailable, code, firstLine(res.Stderr))
		}
		classify(&res, code, rp, lim)
		if cg != nil && (res.Status == Crash || res.Status == Exit) && cg.oomKilled() {
			// The cgroup's limit: the kernel killed a process of the
			// sandbox (what a program keeps in /tmp, /dev/shm or a memfd
			// counts, which no rlimit sees).
			res.Status = Memory
		}
	}
	if ctx.Err() != nil {
		// The caller's context ended, not only the wall limit derived
		// from it: the run was interrupted, not the program's fault.
		return res, ctx.Err()
	}
	return res, nil
}

// programFiles are main.py and p.Files by base name.
func programFiles(p Program) (map[string]string, error) {
	files := map[string]string{"main.py": p.Source}
	for name, text := range p.Files {
		if name == "" || name == "." || name == ".." || filepath.Base(name) != name || name == "main.py" {
			return nil, fmt.Errorf("sandbox: file name %q: want a plain base name other than main.py", name)
		}
		files[name] = text
	}
	return files, nil
}

// memFile is a file of text in memory, read from its start, for bwrap's
// --file to copy into the sandbox.
func memFile(text string) (*os.File, error) {
	fd, err := unix.MemfdCreate("reasonbench-file", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: program file: %w", err)
	}
	f := os.NewFile(uintptr(fd), "reasonbench-file")
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: program file: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: program file: %w", err)
	}
	return f, nil
}

// startIsolated starts cmd from a thread of its own that first joins a
// new, empty session keyring, so the sandbox does not possess bench's
// (under pam_keyinit or a systemd service bench has one, with whatever
// keys its user keeps there). The thread stays until release: the
// child's parent-death signal (Pdeathsig, bwrap's --die-with-parent)
// follows the thread that started it, not the process; after release the
// thread, its credentials changed, ends rather than serve other
// goroutines.
func startIsolated(cmd *exec.Cmd) (release func(), err error) {
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		_, _, errno := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0)
		if errno != 0 && errno != unix.ENOSYS { // ENOSYS: no keyrings in this kernel, none to share
			started <- fmt.Errorf("join a new session keyring: %w", errno)
			return
		}
		started <- cmd.Start()
		<-done
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() { close(done) }, nil
}

// report is the launcher's account of the program's end.
type report struct {
	status syscall.WaitStatus
	cpu    time.Duration
	wall   bool // the launcher ended the sandbox at its wall limit
}

// parseReport reads the launcher's line, "<wait status> <cpu ns>" or
// "wall"; nil when it wrote none (it was killed) or the line does not
// parse.
func parseReport(b []byte) *report {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	if string(line) == "wall" {
		return &report{wall: true}
	}
	f := strings.Fields(string(line))
	if len(f) != 2 {
		return nil
	}
	st, err1 := strconv.ParseUint(f[0], 10, 32)
	ns, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || ns < 0 {
		return nil
	}
	return &report{status: syscall.WaitStatus(st), cpu: time.Duration(ns)}
}

// capped keeps at most max bytes of two streams together and signals over
// once more arrives; what is beyond max is dropped as it arrives, so the
// Go side never holds more than the limit.
type capped struct {
	mu    sync.Mutex
	max   int64
	n     int64
	buf   [2]bytes.Buffer
	cut   bool
	over  chan struct{}
	close sync.Once
}

type cappedStream struct {
	c *capped
	i int
}

func (c *capped) stream(i int) *cappedStream { return &cappedStream{c, i} }

func (s *cappedStream) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.n
	if int64(len(p)) > room {
		if room > 0 {
			c.buf[s.i].Write(p[:room])
			c.n += room
		}
		c.cut = true
		c.close.Do(func() { close(c.over) })
		return len(p), nil
	}
	c.buf[s.i].Write(p)
	c.n += int64(len(p))
	return len(p), nil
}

func (c *capped) text(i int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf[i].String()
}

func (c *capped) truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	if s == "" {
		return "no message"
	}
	return strconv.Quote(s)
}
