// Package sandbox runs programs a model wrote, isolated from the harness:
// never in bench's process, never with the user's privileges, never with
// the network, the project, the database, the home directory or the
// environment. The one backend today is bubblewrap (bwrap.go); the Runner
// interface leaves room for container backends on clusters
// (docs/cluster.md).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Python is the fixed interpreter programs run with.
const Python = "/usr/bin/python3"

// Program is one program to run: a Python source file, optional extra
// files beside it in the private working directory, and standard input.
type Program struct {
	Source string            // main.py
	Files  map[string]string // further files by base name, e.g. "solution.py"
	Stdin  string
	Limits Limits // zero fields take DefaultLimits' values

	// Peer, when set, runs in a sandbox of its own at the same time,
	// connected to this program: in each, file descriptor 3 reads what
	// the other writes to its descriptor 4. This program leads: when it
	// ends, its peer is ended. The run's Result is this program's, with
	// the peer's in Result.Peer. A peer has no peer.
	Peer *Program
}

// Limits bound one run. At any limit the whole process tree is killed and
// the result says which limit it hit.
//
// CPU, Memory and Procs are rlimits, on every process of the sandbox, its
// supervisor's too: CPU and Memory bound each process (CPU in whole
// seconds, rounded up), Procs counts the program's processes and threads
// together (the sandbox's own one, its supervisor, is added to it). Where
// cgroups can be had (docs/sandbox.md), Memory also bounds the whole
// sandbox, its files in memory included (/work, /tmp, /dev/shm, memfds),
// and Procs (plus the supervisor) all its processes and threads. Disk
// bounds each of the in-memory file systems /work, /tmp and /dev/shm. Wall
// bounds the whole tree.
type Limits struct {
	Wall   time.Duration // elapsed time
	CPU    time.Duration // CPU time of each process
	Memory int64         // bytes of address space of each process, and of the sandbox's memory
	Procs  int           // processes and threads of the program
	Output int64         // bytes of standard output plus standard error kept
	Disk   int64         // bytes each of /work, /tmp and /dev/shm holds
}

// DefaultLimits are the limits of a run that sets none: generous for a
// test suite, small enough that many sandboxes fit on a laptop.
var DefaultLimits = Limits{Wall: 10 * time.Second, CPU: 10 * time.Second, Memory: 1 << 30, Procs: 32, Output: 1 << 20, Disk: 256 << 20}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.Wall > 0 {
		d.Wall = l.Wall
	}
	if l.CPU > 0 {
		d.CPU = l.CPU
	}
	if l.Memory > 0 {
		d.Memory = l.Memory
	}
	if l.Procs > 0 {
		d.Procs = l.Procs
	}
	if l.Output > 0 {
		d.Output = l.Output
	}
	if l.Disk > 0 {
		d.Disk = l.Disk
	}
	return d
}

// Status is how a run ended.
type Status string

const (
	OK      Status = "ok"      // exit code 0
	Exit    Status = "exit"    // a non-zero exit code (an uncaught exception, a failed assert)
	Timeout Status = "timeout" // the wall-time limit
	CPU     Status = "cpu"     // the CPU-time limit
	Memory  Status = "memory"  // the memory limit
	Output  Status = "output"  // the output limit
	Procs   Status = "procs"   // the process limit
	Crash   Status = "crash"   // killed by a signal of its own (a segfault, kill(-1, 9))
)

// Result is what a run did. A program's failure is a Result, never an
// error: errors are for a sandbox that could not run at all.
type Result struct {
	Status   Status        `json:"status"`
	ExitCode int           `json:"exit_code"`
	Signal   string        `json:"signal,omitempty"`
	Stdout   string        `json:"stdout"`
	Stderr   string        `json:"stderr"`
	Duration time.Duration `json:"duration_ns"`
	// Truncated is set when output beyond Limits.Output was dropped.
	Truncated bool `json:"truncated,omitempty"`
	// Peer is Program.Peer's result.
	Peer *Result `json:"peer,omitempty"`
}

// Passed reports a clean exit.
func (r Result) Passed() bool { return r.Status == OK }

// Reason is a one-line account of a failed run, for a score's reason.
func (r Result) Reason() string {
	switch r.Status {
	case OK:
		return ""
	case Exit:
		return fmt.Sprintf("exit code %d", r.ExitCode)
	case Crash:
		return "killed by signal " + r.Signal
	default:
		return string(r.Status) + " limit"
	}
}

// Runner runs programs in isolation. Run is safe for concurrent use: each
// call is its own sandbox.
type Runner interface {
	Run(ctx context.Context, p Program) (Result, error)
}

// ErrUnavailable wraps every error of a sandbox that cannot start (the
// tool missing, user namespaces disabled); bench reports it as one line
// naming what to install. There is no unsandboxed fall-back.
var ErrUnavailable = errors.New("sandbox unavailable")
