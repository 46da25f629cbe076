//go:build linux

package sandbox

import (
	"strings"
	"syscall"
	"time"
)

// classify sets res's Status, ExitCode and Signal from bubblewrap's exit
// code (code: 128+n for a signal, as bwrap reports its child's) and the
// launcher's report (nil when there is none).
//
// Both come from the launcher, pid 1, which the program cannot reach (not
// dumpable: no /proc/1/mem, no /proc/1/fd; no signal from inside the
// namespace but those it handles): bwrap's code through bench's own wait
// for bwrap, the report through a pipe only the launcher holds. bwrap's
// code is the authority on success: it is 0 only when the launcher exited
// 0, which it does only when the program did. The report only refines a
// failure: it is believed when it agrees with the code, so that even a
// forged report could relabel a program's own failure (exit as crash,
// crash as cpu), never turn a failure into a pass.
//
// The kernel keeps no record of a refused allocation or fork, so memory
// and procs are read from how Python reports them on stderr
// (MemoryError, ENOMEM; BlockingIOError EAGAIN from fork): a program that
// catches them decides its own outcome, like any other exception.
func classify(res *Result, code int, rep *report, lim Limits) {
	if code == 0 {
		res.Status = OK
		return
	}
	if rep != nil && rep.wall && code == 128+int(syscall.SIGKILL) {
		// The launcher kept the wall limit (and exits so): bench was late.
		res.Status = Timeout
		return
	}
	exited, val := true, code
	if code > 128 {
		exited, val = false, code-128
	}
	var cpu time.Duration
	if rep != nil && agrees(rep.status, code) {
		exited = rep.status.Exited()
		if exited {
			val = rep.status.ExitStatus()
		} else {
			val = int(rep.status.Signal())
		}
		cpu = rep.cpu
	}
	if exited {
		res.ExitCode = val
		res.Status = Exit
		switch {
		case memoryRefused(res.Stderr):
			res.Status = Memory
		case forkRefused(res.Stderr):
			res.Status = Procs
		}
		return
	}
	sig := syscall.Signal(val)
	res.Signal = signalName(sig)
	res.Status = Crash
	switch {
	case sig == syscall.SIGXCPU:
		res.Status = CPU
	case sig == syscall.SIGKILL && cpu >= lim.CPU.Truncate(time.Second) && cpu > 0:
		// The hard CPU limit, a second after the soft one a program ignored.
		res.Status = CPU
	case (sig == syscall.SIGSEGV || sig == syscall.SIGABRT || sig == syscall.SIGBUS) && memoryRefused(res.Stderr):
		// A C-level allocation failure Python could not turn into an exception.
		res.Status = Memory
	}
}

// agrees reports whether the launcher's wait status is the one bwrap's
// exit code folds.
func agrees(ws syscall.WaitStatus, code int) bool {
	switch {
	case ws.Exited():
		return ws.ExitStatus() == code
	case ws.Signaled():
		return 128+int(ws.Signal()) == code
	}
	return false
}

// tailLines are the last lines of a program's stderr, where an uncaught
// exception ends up.
func tailLines(stderr string) []string {
	const n = 4096
	if len(stderr) > n {
		stderr = stderr[len(stderr)-n:]
	}
	return strings.Split(stderr, "\n")
}

func memoryRefused(stderr string) bool {
	for _, l := range tailLines(stderr) {
		l = strings.TrimSpace(l)
		if l == "MemoryError" || strings.HasPrefix(l, "MemoryError:") ||
			strings.Contains(l, "[Errno 12] Cannot allocate memory") ||
			(strings.HasPrefix(l, "Fatal Python error:") && strings.Contains(l, "memory")) {
			return true
		}
	}
	return false
}

func forkRefused(stderr string) bool {
	for _, l := range tailLines(stderr) {
		if strings.HasPrefix(strings.TrimSpace(l), "BlockingIOError: [Errno 11]") {
			return true
		}
	}
	return false
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGILL: "SIGILL",
	syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
	syscall.SIGKILL: "SIGKILL", syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM", syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGSYS: "SIGSYS",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return s.String()
}
