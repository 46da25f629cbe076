package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Python is the fixed interpreter programs run with.
const Python = "/usr/bin/python3"

// Bwrap runs programs under bubblewrap: new user, PID, network, IPC and UTS
// namespaces, a read-only view of the system directories only, an empty
// private /tmp working directory, an empty environment.
type Bwrap struct {
	path string // the bwrap binary
}

// NewBwrap finds bubblewrap and checks that it can start a sandbox here.
func NewBwrap(ctx context.Context) (*Bwrap, error) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("%w: bubblewrap (bwrap) not found: install the Debian package bubblewrap (apt-get install bubblewrap)", ErrUnavailable)
	}
	if _, err := os.Stat(Python); err != nil {
		return nil, fmt.Errorf("%w: %s not found: install the Debian package python3", ErrUnavailable, Python)
	}
	b := &Bwrap{path: path}
	res, err := b.Run(ctx, Program{Source: "print('ok')"})
	if err != nil {
		return nil, err
	}
	if res.Status != OK || res.Stdout != "ok\n" {
		return nil, fmt.Errorf("%w: bubblewrap cannot start a sandbox here (%s: %q); it needs unprivileged user namespaces", ErrUnavailable, res.Reason(), tail(res.Stderr, 200))
	}
	return b, nil
}

// launcher sets the resource limits (soft and hard, so the program cannot
// raise them) and then becomes the program.
const launcher = `import os, resource, sys
cpu, mem, nproc = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
os.execv(sys.argv[4], sys.argv[4:])
`

// Run runs p in a fresh sandbox.
func (b *Bwrap) Run(ctx context.Context, p Program) (Result, error) {
	lim := p.Limits.WithDefaults()
	dir, err := os.MkdirTemp("", "reasonbench-sandbox-")
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	files := map[string]string{"main.py": p.Source}
	for name, text := range p.Files {
		files[filepath.Base(name)] = text
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	args := []string{
		"--unshare-all", "--die-with-parent", "--new-session",
		"--uid", "65534", "--gid", "65534",
		"--ro-bind", "/usr", "/usr",
		"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
		"--proc", "/proc", "--dev", "/dev",
		"--tmpfs", "/tmp", "--bind", dir, "/work", "--chdir", "/work",
		"--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/work",
		"--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "PYTHONHASHSEED", "0",
		"--", Python, "-I", "-S", "-c", launcher,
		strconv.Itoa(int((lim.CPU + time.Second - 1) / time.Second)), strconv.FormatInt(lim.Memory, 10), strconv.Itoa(lim.Procs),
		Python, "-I", "main.py",
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Wall)
	defer cancel()
	cmd := exec.Command(b.path, args...)
	cmd.Env = []string{}
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader([]byte(p.Stdin))
	out := &capped{max: lim.Output, over: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out.stream(0), out.stream(1)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("%w: start bubblewrap: %v", ErrUnavailable, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var status Status
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		status = Timeout
	case <-out.over:
		status = Output
	}
	if status != "" {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr = <-done
	}
	res := Result{Duration: time.Since(start), Truncated: out.truncated()}
	res.Stdout, res.Stderr = out.text(0), out.text(1)
	var ee *exec.ExitError
	switch {
	case werr == nil:
		res.Status = OK
	case errors.As(werr, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		switch {
		case ws.Signaled():
			res.Signal = ws.Signal().String()
			res.Status = Crash
			if ws.Signal() == syscall.SIGXCPU {
				res.Status = CPU
			}
		default:
			res.ExitCode = ws.ExitStatus()
			res.Status = Exit
			if res.ExitCode > 128 { // bwrap's pid 1 reports a signalled child as 128+n
				sig := syscall.Signal(res.ExitCode - 128)
				res.Signal = sig.String()
				res.Status = Crash
				if sig == syscall.SIGXCPU {
					res.Status = CPU
				}
			}
		}
		if res.Status == Exit && bytes.Contains([]byte(tail(res.Stderr, 400)), []byte("MemoryError")) {
			res.Status = Memory
		}
	default:
		return Result{}, fmt.Errorf("sandbox: wait: %w", werr)
	}
	if status != "" {
		res.Status = status
		res.ExitCode = 0
	}
	if ctx.Err() != nil && res.Status != Output && parentDone(ctx) {
		return res, ctx.Err()
	}
	return res, nil
}

// parentDone reports whether the caller's context ended (not only the wall
// limit derived from it).
func parentDone(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), context.Canceled)
}

// capped keeps at most max bytes of two streams together and signals over
// once more arrives.
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

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
