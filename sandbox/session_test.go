//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// echo is a session program: each request is Python code exec'd in one
// namespace kept across requests; the reply is str(reply) after it, or
// the exception's repr.
const echo = `import os, struct
ns = {}

def read(n):
    b = b""
    while len(b) < n:
        c = os.read(3, n - len(b))
        if not c:
            os._exit(0)
        b += c
    return b

while True:
    n, = struct.unpack(">I", read(4))
    code = read(n).decode()
    ns.pop("reply", None)
    try:
        exec(code, ns)
        out = str(ns.get("reply", ""))
    except BaseException as e:
        out = "error: " + repr(e)
    b = struct.pack(">I", len(out.encode())) + out.encode()
    while b:
        b = b[os.write(4, b):]
`

func startEcho(t *testing.T, s Starter, lim Limits) *Session {
	t.Helper()
	sess, err := s.Start(context.Background(), Program{Source: echo, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func call(t *testing.T, s *Session, code string, wait time.Duration) (string, error) {
	t.Helper()
	b, err := s.Call(context.Background(), []byte(code), wait)
	return string(b), err
}

// TestSessionKeepsState: one program answers requests in turn, keeping
// what earlier requests defined, inside the sandbox (nobody, no /etc,
// loopback only); Close ends it and every process it started.
func TestSessionKeepsState(t *testing.T) {
	b := runner(t)
	s := startEcho(t, b, Limits{Wall: time.Minute})
	for i, want := range []string{"1", "2", "3"} {
		code := "x = x + 1 if 'x' in globals() else 1\nreply = x"
		if got, err := call(t, s, code, 20*time.Second); err != nil || got != want {
			t.Fatalf("request %d: %q, %v; want %q", i, got, err, want)
		}
	}
	got, err := call(t, s, "import os, socket\nreply = (os.getuid(), os.path.exists('/etc'), [n for _, n in socket.if_nameindex()])", 20*time.Second)
	if err != nil || got != "(65534, False, ['lo'])" {
		t.Fatalf("inside the session: %q, %v", got, err)
	}
	marker := "reasonbench-session-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Cleanup(func() { killSandboxesWith(marker) })
	bg := fmt.Sprintf("import os, sys\nif os.fork() == 0:\n    os.setsid()\n    os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', %q])\nreply = 'started'", marker)
	if got, err := call(t, s, bg, 20*time.Second); err != nil || got != "started" {
		t.Fatalf("background process: %q, %v", got, err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(processesWith(marker)) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the background process never showed")
		}
	}
	res, err := s.Close()
	if err != nil || res.Status != OK {
		t.Errorf("close: %+v, %v", res, err)
	}
	if left := processesWith(marker); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
	if !s.Ended() {
		t.Error("a closed session has not ended")
	}
	if _, err := call(t, s, "reply = 1", time.Second); !errors.Is(err, ErrSessionEnded) {
		t.Errorf("a request after Close: %v", err)
	}
}

// TestSessionEnds: the ways a program ends during a request, each an
// EndedError saying how, after which the session takes no request.
func TestSessionEnds(t *testing.T) {
	b := runner(t)
	for _, c := range []struct {
		name, code string
		lim        Limits
		wait       time.Duration
		want       Status
		code0      int
	}{
		{"its wait", "import time\ntime.sleep(60)", Limits{Wall: time.Minute}, time.Second, Timeout, 0},
		{"its wait, the alarm ignored", "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass", Limits{Wall: time.Minute}, time.Second, Timeout, 0},
		{"it exits", "import os\nos._exit(3)", Limits{Wall: time.Minute}, 20 * time.Second, Exit, 3},
		{"its output", "import os\nos.write(1, b'x' * (2 << 20))\nimport time\ntime.sleep(60)", Limits{Wall: time.Minute, Output: 1 << 20}, 20 * time.Second, Output, 0},
		{"a reply over the output limit", "reply = 'x' * (2 << 20)", Limits{Wall: time.Minute, Output: 1 << 20}, 20 * time.Second, Output, 0},
		{"its CPU", "while True:\n    pass", Limits{Wall: time.Minute, CPU: time.Second}, 20 * time.Second, CPU, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startEcho(t, b, c.lim)
			if got, err := call(t, s, "reply = 'up'", 20*time.Second); err != nil || got != "up" {
				t.Fatalf("%q, %v", got, err)
			}
			start := time.Now()
			_, err := call(t, s, c.code, c.wait)
			var ended *EndedError
			if !errors.As(err, &ended) || ended.Result.Status != c.want || (c.code0 != 0 && ended.Result.ExitCode != c.code0) {
				t.Fatalf("got %v (%+v), want status %s", err, ended, c.want)
			}
			if c.want == Timeout && time.Since(start) > c.wait+5*time.Second {
				t.Errorf("ended %v after the request, its wait was %v", time.Since(start), c.wait)
			}
			if !s.Ended() {
				t.Error("the session did not end")
			}
			if _, err := call(t, s, "reply = 1", time.Second); !errors.Is(err, ErrSessionEnded) {
				t.Errorf("a request after the end: %v", err)
			}
		})
	}
}

// TestSessionLimitsHold: within a request the program's limits hold and
// the session goes on: an allocation past the memory limit fails, forks
// past the process limit fail.
func TestSessionLimitsHold(t *testing.T) {
	b := runner(t)
	s := startEcho(t, b, Limits{Wall: time.Minute, Memory: 256 << 20, Procs: 8})
	got, err := call(t, s, "x = bytearray(1 << 30)", 20*time.Second)
	if err != nil || !strings.Contains(got, "MemoryError") {
		t.Fatalf("1 GiB with a limit of 256 MiB: %q, %v", got, err)
	}
	got, err = call(t, s, `import os, time
pids = []
try:
    for i in range(40):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        pids.append(pid)
    reply = "forked %d" % len(pids)
except OSError as e:
    reply = "refused after %d" % len(pids)
for p in pids:
    os.kill(p, 9)
    os.waitpid(p, 0)
`, 20*time.Second)
	if err != nil || !strings.HasPrefix(got, "refused after ") {
		t.Fatalf("forty forks with a limit of 8: %q, %v", got, err)
	}
	if n, _ := strconv.Atoi(strings.TrimPrefix(got, "refused after ")); n > 8 {
		t.Errorf("%s with a limit of 8", got)
	}
	if got, err := call(t, s, "reply = 'still here'", 20*time.Second); err != nil || got != "still here" {
		t.Errorf("after: %q, %v", got, err)
	}
}

// TestSessionWall: the session's wall limit is its lifetime: a request
// whose wait would outlast it is not sent, and the session ends at it.
func TestSessionWall(t *testing.T) {
	b := runner(t)
	s := startEcho(t, b, Limits{Wall: 4 * time.Second})
	if got, err := call(t, s, "reply = 'up'", 2*time.Second); err != nil || got != "up" {
		t.Fatalf("%q, %v", got, err)
	}
	if _, err := call(t, s, "x = 1", 10*time.Second); !errors.Is(err, ErrSessionEnded) {
		t.Errorf("a wait past the lifetime: %v", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !s.Ended() {
		if time.Now().After(deadline) {
			t.Fatal("the session outlived its wall limit")
		}
		time.Sleep(100 * time.Millisecond)
	}
	res, err := s.Close()
	if err != nil || res.Status != Timeout {
		t.Errorf("ended by its wall limit: %+v, %v", res, err)
	}
}

// TestSessionCancel: a request whose context ends ends the session.
func TestSessionCancel(t *testing.T) {
	b := runner(t)
	s := startEcho(t, b, Limits{Wall: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := s.Call(ctx, []byte("import time\ntime.sleep(60)"), 30*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if !s.Ended() {
		t.Error("the session outlived its canceled request")
	}
}

// TestSessionThroughLimit: a runner Limit returns starts sessions on the
// runner it bounds, outside its bound; one that keeps none says so.
func TestSessionThroughLimit(t *testing.T) {
	b := runner(t)
	lim := Limit(b, 1)
	s := startEcho(t, lim.(Starter), Limits{Wall: time.Minute})
	if got, err := call(t, s, "reply = 6 * 7", 20*time.Second); err != nil || got != "42" {
		t.Fatalf("%q, %v", got, err)
	}
	// The session holds no place: a program still runs.
	res, err := lim.Run(context.Background(), Program{Source: "print('ran')"})
	if err != nil || res.Stdout != "ran\n" {
		t.Errorf("a program beside a session: %+v, %v", res, err)
	}
	if _, err := Limit(noSessions{}, 1).(Starter).Start(context.Background(), Program{Source: echo}); !errors.Is(err, ErrNoSessions) {
		t.Errorf("a runner without sessions: %v", err)
	}
}

type noSessions struct{}

func (noSessions) Run(context.Context, Program) (Result, error) { return Result{Status: OK}, nil }
