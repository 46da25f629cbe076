package strategies

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// replayOnly hides an executor's sessions: the shared namespace is then
// replayed in a program per step.
type replayOnly struct{ tasks.Executor }

// sessionLog counts what the shared namespace asks of an executor that
// keeps sessions.
type sessionLog struct {
	tasks.SessionExecutor
	mu       sync.Mutex
	starts   int
	executed []string // sites of programs
	recorded []string // sites of session exchanges, with their status and output
}

func (l *sessionLog) Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	l.mu.Lock()
	l.executed = append(l.executed, site)
	l.mu.Unlock()
	return l.SessionExecutor.Execute(ctx, site, p)
}

func (l *sessionLog) StartSession(ctx context.Context, p sandbox.Program) (*sandbox.Session, error) {
	l.mu.Lock()
	l.starts++
	l.mu.Unlock()
	return l.SessionExecutor.StartSession(ctx, p)
}

func (l *sessionLog) Record(ctx context.Context, site string, p sandbox.Program, res sandbox.Result) error {
	l.mu.Lock()
	l.recorded = append(l.recorded, site+" "+string(res.Status)+" "+res.Stdout)
	l.mu.Unlock()
	return l.SessionExecutor.Record(ctx, site, p, res)
}

func newSessionLog(t *testing.T) *sessionLog {
	return &sessionLog{SessionExecutor: codeExec(t).(tasks.SessionExecutor)}
}

// hostileChain is chainProblems and problems that time out at their
// alarm, end the process by their output or by os._exit, and fetch an
// output longer than the interpreter's replies, with problems after each
// reading what the namespace kept.
var hostileChain = append(slices.Clone(chainProblems), []chainProblem{
	{"def slow(x: int) -> int:\n    \"\"\"Sleep.\"\"\"\n", "slow",
		"def slow(x):\n    import time\n    time.sleep(3)\n    return 1\nslept = 1",
		"assert slow(0) == 1\nassert slept == 1"},
	{"def loud(x: int) -> int:\n    \"\"\"Shout.\"\"\"\n", "loud",
		"def loud(x):\n    return 1\nimport os\nos.write(1, b'x' * (2 << 20))\nloud_done = 1",
		"assert loud(0) == 1"},
	{"def after_loud(x: int) -> int:\n    \"\"\"Read.\"\"\"\n", "after_loud",
		"    return n",
		"assert after_loud(0) == 3\nassert _sq(2) == 4"},
	{"def big(x: int) -> str:\n    \"\"\"Long.\"\"\"\n", "big",
		"def big(x):\n    return 'y' * 3000000\nbig_seen = 1",
		"assert big(0) == 'y'\nassert big_seen == 1"},
	{"def leave(x: int) -> int:\n    \"\"\"Exit.\"\"\"\n", "leave",
		"def leave(x):\n    import os\n    os._exit(0)\nleft = 1",
		"assert leave(0) == 1\nassert left == 1"},
	{"def last(x: int) -> int:\n    \"\"\"Read.\"\"\"\n", "last",
		"    return big_seen",
		"assert last(0) == 1\nassert left == 1"},
}...)

// The run's interpreter gives the replay's results: on the chain of
// problems that share helpers and counters, a test that times out at its
// alarm, output that ends the process, an output longer than a reply,
// and os._exit, every problem's implementation, feedback and failed
// tests are the same with a session as replayed in a program per step;
// and with a session no test is a program: one interpreter for the whole
// run, each test and output fetch recorded at its site.
func TestReflexionCodeSessionGivesTheReplaysResults(t *testing.T) {
	set := map[string]any{"max_iters": 1, "namespace": "shared", "test_timeout": 0.5}
	log := newSessionLog(t)
	s := newStrategy(t, "reflexion_code", set)
	defer s.(interface{ Close() error }).Close()
	got := solveChainOn(t, log, chain{hostileChain}, s, 0, nil)
	want := solveChainOn(t, replayOnly{codeExec(t)}, chain{hostileChain}, newStrategy(t, "reflexion_code", set), 0, nil)
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("problem %d (%s):\nsession  %+v\nreplayed %+v", i, hostileChain[i].entry, got[i], want[i])
		}
	}
	// What the replay found, spelled out for the problems after each end.
	for i, f := range map[int]string{
		// The alarm: TIMEOUT, and the namespace goes on.
		4: "Tested passed:\nassert slept == 1\n\nTests failed:\nassert slow(0) == 1 # output: TIMEOUT",
		// Output on descriptor 1 goes nowhere, ending nothing.
		6: "Tested passed:\nassert after_loud(0) == 3\nassert _sq(2) == 4\n\nTests failed:",
		// An output longer than a reply is an empty one.
		7: "Tested passed:\nassert big_seen == 1\n\nTests failed:\nassert big(0) == 'y' # output: ",
		// os._exit in the test and again in its output fetch: the
		// second test runs in a fresh namespace, which it leaves to the
		// next problem.
		9: "Tested passed:\nassert left == 1\n\nTests failed:\nassert last(0) == 1 # output: name 'big_seen' is not defined",
	} {
		if got[i].Feedback != f {
			t.Errorf("problem %d: feedback\n%s\nwant\n%s", i, got[i].Feedback, f)
		}
	}
	// Interpreters: the first, one after os._exit (the test), one after
	// it again (the output fetch).
	if log.starts != 3 {
		t.Errorf("%d interpreters started, want 3", log.starts)
	}
	for _, site := range log.executed {
		if strings.Contains(site, "/internal/") {
			t.Errorf("a test ran as a program: %s", site)
		}
	}
	if len(log.recorded) == 0 || !strings.HasPrefix(log.recorded[0], "i0/internal/0 ok ") {
		t.Errorf("recorded %q", log.recorded)
	}
}

// An interpreter that ended between problems (idle, or ended from
// outside) is rebuilt from the steps before, with the same results; so is
// one after a restore (a resumed run).
func TestReflexionCodeSessionRebuilds(t *testing.T) {
	set := map[string]any{"max_iters": 1, "namespace": "shared"}
	want := solveChain(t, chain{chainProblems}, newStrategy(t, "reflexion_code", set), 0, nil)

	log := newSessionLog(t)
	s := newStrategy(t, "reflexion_code", set).(*reflexionCode)
	defer s.Close()
	s.ns.idleAfter = 100 * time.Millisecond
	lib, _ := prompts.Bundled()
	c := chain{chainProblems}
	insts, _ := c.Instances()
	if err := s.Restore(c, lib, nil); err != nil {
		t.Fatal(err)
	}
	var got []CodeIteration
	for i, inst := range insts {
		p := c.ps[i]
		model := &codeScript{answers: map[string]string{"i0/tests": p.tests, "i0/impl": p.answer}}
		res, err := s.Solve(context.Background(), Env{Sampler: model, Task: c, Prompts: lib, Seed: 3, Exec: log}, inst)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.Detail.(CodeDetail).Iterations[0])
		if i == 0 {
			// Idle past its limit: ended.
			time.Sleep(time.Second)
			s.ns.mu.Lock()
			idle := s.ns.sess == nil
			s.ns.mu.Unlock()
			if !idle {
				t.Error("an idle interpreter was not ended")
			}
			continue
		}
		// Ended from outside.
		s.ns.mu.Lock()
		if s.ns.sess != nil {
			s.ns.sess.Close()
		}
		s.ns.mu.Unlock()
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rebuilt before every problem:\n%+v\nwant\n%+v", got, want)
	}
	if log.starts != len(insts) {
		t.Errorf("%d interpreters for %d problems, each after the last ended", log.starts, len(insts))
	}

	// A whole run, then the last problem again after a restore of the
	// problems before it: one interpreter, rebuilt once.
	last := len(want) - 1
	var before []CodeDetail
	for i, it := range want[:last] {
		d := CodeDetail{Version: CodeVersionLogged, Strategy: "reflexion", Tests: splitLines(chainProblems[i].tests),
			Iterations: []CodeIteration{it}, Evaluated: -1}
		if it.Passed {
			d.Evaluated = 0
		}
		before = append(before, d)
	}
	log = newSessionLog(t)
	s2 := newStrategy(t, "reflexion_code", set).(*reflexionCode)
	defer s2.Close()
	solveChainOn(t, log, chain{chainProblems}, s2, 0, nil)
	again := solveChainOn(t, log, chain{chainProblems}, s2, last, before)
	if !reflect.DeepEqual(again[0], want[last]) || log.starts != 2 {
		t.Errorf("restored: %+v (%d interpreters), want %+v", again[0], log.starts, want[last])
	}
}

// A test that hangs past its alarm (the alarm ignored) ends the
// interpreter at its wait, as the replay's program ended at its wall
// limit: TIMEOUT, and a fresh namespace after it. A step that writes
// over the interpreter's replies ends it too.
func TestReflexionCodeSessionHangAndGarble(t *testing.T) {
	c := chain{[]chainProblem{
		{"def hang(x: int) -> int:\n    \"\"\"Hang.\"\"\"\n", "hang",
			"def hang(x):\n    import signal\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    while True:\n        pass\nhung = 1",
			"assert hang(0) == 1"},
		{"def after(x: int) -> int:\n    \"\"\"Read.\"\"\"\n", "after", "def after(x):\n    return hung\nkept = 1",
			"assert after(0) == 1"},
		{"def garble(x: int) -> int:\n    \"\"\"Write over the replies.\"\"\"\n", "garble",
			"    import os\n    for fd in range(500, 510):\n        try:\n            os.write(fd, b'\\x00\\x00\\x00\\x02{}')\n        except OSError:\n            pass\n    return 1",
			"assert garble(0) == 1\nassert kept == 1"},
	}}
	log := newSessionLog(t)
	s := newStrategy(t, "reflexion_code", map[string]any{"max_iters": 1, "namespace": "shared", "test_timeout": 0.5}).(*reflexionCode)
	defer s.Close()
	s.ns.grace = 2 * time.Second
	start := time.Now()
	got := solveChainOn(t, log, c, s, 0, nil)
	want := []string{
		"Tested passed:\n\nTests failed:\nassert hang(0) == 1 # output: TIMEOUT",
		"Tested passed:\n\nTests failed:\nassert after(0) == 1 # output: name 'hung' is not defined",
		"Tested passed:\n\nTests failed:\nassert garble(0) == 1 # output: \nassert kept == 1 # output: name 'kept' is not defined",
	}
	for i, it := range got {
		if it.Feedback != want[i] {
			t.Errorf("problem %d: feedback\n%s\nwant\n%s", i, it.Feedback, want[i])
		}
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %v", d)
	}
}

// pySession's reply limit is nsReplyMax.
func TestReflexionCodeSessionReplyLimit(t *testing.T) {
	if !strings.Contains(pySession, "limit = "+strconv.Itoa(nsReplyMax)+" ") {
		t.Errorf("pySession's limit is not %d", nsReplyMax)
	}
	// Steps are the same step by their text, whatever made them.
	a, b := mkStep("x = 1", "", 5), nsStep{Code: "x = 1", Timeout: 5}
	if !a.same(b) || !b.same(a) || a.same(mkStep("x = 1", "", 5.5)) || a.same(mkStep("x = 1", "x", 5)) {
		t.Error("same")
	}
	blob, _ := json.Marshal(a)
	if string(blob) != `{"code":"x = 1","timeout":5}` {
		t.Errorf("a step's JSON: %s", blob)
	}
}
