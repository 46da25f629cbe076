//go:build linux

package sandbox

import (
	"syscall"
	"testing"
	"time"
)

func exited(code int) *report { return &report{status: syscall.WaitStatus(code << 8)} }
func killed(s syscall.Signal, cpu time.Duration) *report {
	return &report{status: syscall.WaitStatus(s), cpu: cpu}
}

// TestClassify: bwrap's exit code decides pass or fail, the launcher's
// report refines a failure only when it agrees, and memory and procs are
// read from Python's own last words.
func TestClassify(t *testing.T) {
	lim := Limits{CPU: 2 * time.Second}.WithDefaults()
	cases := []struct {
		name   string
		code   int
		rep    *report
		stderr string
		want   Status
		exit   int
		signal string
	}{
		{"clean", 0, exited(0), "", OK, 0, ""},
		{"clean, a forged report", 0, killed(syscall.SIGSEGV, 0), "", OK, 0, ""},
		{"a failure a forged report calls clean", 1, exited(0), "", Exit, 1, ""},
		{"exit 137, said by the report", 137, exited(137), "", Exit, 137, ""},
		{"exit 137, no report", 137, nil, "", Crash, 0, "SIGKILL"},
		{"killed, no report (the supervisor killed)", 137, nil, "", Crash, 0, "SIGKILL"},
		{"SIGXCPU", 128 + 24, killed(syscall.SIGXCPU, 2*time.Second), "", CPU, 0, "SIGXCPU"},
		{"SIGKILL at the hard CPU limit", 137, killed(syscall.SIGKILL, 3*time.Second), "", CPU, 0, "SIGKILL"},
		{"SIGKILL with little CPU", 137, killed(syscall.SIGKILL, time.Second), "", Crash, 0, "SIGKILL"},
		{"MemoryError", 1, exited(1), "Traceback (most recent call last):\n  File \"main.py\"\nMemoryError\n", Memory, 1, ""},
		{"MemoryError with a message", 1, exited(1), "MemoryError: cannot allocate\n", Memory, 1, ""},
		{"ENOMEM", 1, exited(1), "OSError: [Errno 12] Cannot allocate memory\n", Memory, 1, ""},
		{"MemoryError in another exception's text", 1, exited(1), "AssertionError: MemoryError\n", Exit, 1, ""},
		{"segfault after a refused allocation", 139, killed(syscall.SIGSEGV, 0), "Fatal Python error: out of memory\n", Memory, 0, "SIGSEGV"},
		{"segfault", 139, killed(syscall.SIGSEGV, 0), "", Crash, 0, "SIGSEGV"},
		{"fork refused", 1, exited(1), "    os.fork()\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n", Procs, 1, ""},
		{"MemoryError printed by a passing program", 0, exited(0), "MemoryError\n", OK, 0, ""},
		{"the supervisor's wall limit", 137, &report{wall: true}, "", Timeout, 0, ""},
		{"a wall report the code does not agree with", 1, &report{wall: true}, "", Exit, 1, ""},
		{"a wall report, exit 0", 0, &report{wall: true}, "", OK, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Result{Stderr: c.stderr}
			classify(&r, c.code, c.rep, lim)
			if r.Status != c.want || r.ExitCode != c.exit || r.Signal != c.signal {
				t.Errorf("%s exit %d signal %q, want %s %d %q", r.Status, r.ExitCode, r.Signal, c.want, c.exit, c.signal)
			}
		})
	}
}

// TestParseReport: the launcher's two lines, and nothing else.
func TestParseReport(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *report
	}{
		{"0 12345\n", &report{status: 0, cpu: 12345}},
		{"9 5000000000\n", &report{status: 9, cpu: 5 * time.Second}},
		{"wall\n", &report{wall: true}},
		{"wall", &report{wall: true}},
		{"wall 0\n", nil},
		{"walls\n", nil},
		{"", nil},
		{"1 -5\n", nil},
		{"x 5\n", nil},
		{"1 2 3\n", nil},
	} {
		got := parseReport([]byte(c.in))
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("parseReport(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// FuzzReport: whatever the program writes to the report pipe, the exit
// code alone decides whether a run passed.
func FuzzReport(f *testing.F) {
	f.Add([]byte("0 12345\n"), 0)
	f.Add([]byte("9 5000000000\n"), 137)
	f.Add([]byte("256 1\n0 0\n"), 1)
	f.Add([]byte("garbage"), 139)
	f.Fuzz(func(t *testing.T, b []byte, code int) {
		if code < 0 || code > 255 {
			return
		}
		r := Result{Stderr: string(b)}
		classify(&r, code, parseReport(b), DefaultLimits)
		if (r.Status == OK) != (code == 0) {
			t.Errorf("code %d report %q: status %s", code, b, r.Status)
		}
		if r.Status == "" || (r.Status != OK && r.Reason() == "") {
			t.Errorf("status %q reason %q", r.Status, r.Reason())
		}
	})
}
