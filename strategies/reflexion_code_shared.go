package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// namespace=shared: the reference's executor runs every internal test as
// exec(impl + test, globals()) in its own module's globals, which every
// problem of a run shares in run order, and fetches a failing test's
// output from a second exec of the implementation and an eval of the
// call there too. What an earlier problem's implementation defined or
// imported is thus visible to later problems' tests.
//
// Here each such execution is a step of one namespace, seeded as the
// executor module's, that holds every step the reference would have
// exec'd before it (the earlier problems' and this problem's earlier
// ones), each run under its own alarm: in the run's one sandboxed
// interpreter, which keeps the namespace and execs each step once
// (nsSession, reflexion_code_session.go), or, where the executor keeps no
// sessions, in a program that replays every step before it (runReplayed;
// the same results at a cost quadratic in the run). The steps are a
// function of the stored details, so a rerun, a resumed run and any
// concurrency have the same ones (a resumed run's interpreter is rebuilt
// from them); the engine solves the items one at a time in range order
// (Ordered).
//
// Not exec'd: the hidden tests, which never reach a strategy; in their
// place the evaluated implementation is exec'd alone (the reference's
// evaluate exec'd it, then the hidden test and check).

// nsStep is one exec into the shared namespace: Code is exec'd; with
// Call, the call of that assert is then evaluated (get_output).
type nsStep struct {
	Code    string   `json:"code"`
	Call    string   `json:"call,omitempty"`
	Timeout float64  `json:"timeout"`
	sum     [32]byte // its digest (mkStep)
}

// InOrder implements Ordered.
func (s *reflexionCode) InOrder() string {
	if s.shared {
		return "reflexion_code namespace=shared runs each problem's tests in the namespace the earlier problems left, problems in range order"
	}
	return ""
}

// Restore implements Ordered: the steps the problems done exec'd.
func (s *reflexionCode) Restore(_ tasks.Task, _ *prompts.Library, done []Solved) error {
	if !s.shared {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ns.mu.Lock()
	s.ns.reset()
	s.ns.mu.Unlock()
	s.steps = nil
	for _, d := range done {
		var cd CodeDetail
		if err := json.Unmarshal(d.Detail, &cd); err != nil {
			return fmt.Errorf("item %d: reading its implementations: %w", d.Instance.Index, err)
		}
		s.steps = append(s.steps, s.itemSteps(cd)...)
	}
	return nil
}

// prelude is the steps of the problems solved before this one.
func (s *reflexionCode) prelude() []nsStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clip(s.steps)
}

// finish adds a solved problem's steps to the run's.
func (s *reflexionCode) finish(d CodeDetail) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, s.itemSteps(d)...)
}

// itemSteps are the execs a problem made, in the reference's order: each
// implementation's tests (a failing one followed by its output fetch),
// then the evaluated implementation.
func (s *reflexionCode) itemSteps(d CodeDetail) []nsStep {
	var out []nsStep
	for n, it := range d.Iterations {
		if d.Strategy == "reflexion" {
			out = append(out, s.testSteps(it.Impl, d.Tests, it.Failed, len(d.Tests))...)
		}
		if n == d.Evaluated {
			out = append(out, mkStep(s.head()+it.Impl, "", 10))
		}
	}
	return out
}

// testSteps are the execs of impl's first k tests, failed naming those
// that failed.
func (s *reflexionCode) testSteps(impl string, tests []string, failed []int, k int) []nsStep {
	var out []nsStep
	secs := s.timeout.Seconds()
	for i, t := range tests[:k] {
		out = append(out, mkStep(s.head()+impl+"\n"+t, "", secs))
		if slices.Contains(failed, i) {
			out = append(out, mkStep(s.head()+impl, t, secs))
		}
	}
	return out
}

func (s *reflexionCode) head() string {
	if s.withTyping {
		return "from typing import *\n"
	}
	return ""
}

// runShared runs step last after the steps before in one namespace and
// says whether it raised nothing, with its output (a fetched value,
// "TIMEOUT", or the exception's message): in the run's interpreter
// (nsSession), or, where the executor keeps no sessions, replayed in a
// program of its own (runReplayed). The two give the same results.
func (r *codeRun) runShared(ctx context.Context, site string, before []nsStep, last nsStep) (bool, string, error) {
	mode := "left"
	if r.s.version == CodeVersionCurrent {
		mode = "left_or_test"
	}
	if sx, ok := r.env.Exec.(tasks.SessionExecutor); ok && !r.s.ns.noSessions() {
		ok, out, err := r.s.ns.run(ctx, sx, mode, site, before, last)
		if !errors.Is(err, sandbox.ErrNoSessions) {
			return ok, out, err
		}
	}
	return r.runReplayed(ctx, mode, site, before, last)
}

// runReplayed runs step last after the steps before in one program that
// execs them all in one namespace, each under its alarm. A step before
// that ends the process (os._exit, a limit of the sandbox) ended the
// reference's whole run; as a resumed run there, the steps after it go on
// in a fresh namespace (a program of its own, at site/resume<k>).
func (r *codeRun) runReplayed(ctx context.Context, mode, site string, before []nsStep, last nsStep) (bool, string, error) {
	steps := append(slices.Clip(before), last)
	mark := r.sentinel(site)
	for part := 0; ; part++ {
		blob, err := json.Marshal(map[string]any{"steps": steps, "mode": mode})
		if err != nil {
			return false, "", err
		}
		var total time.Duration
		for _, st := range steps {
			total += time.Duration(st.Timeout * float64(time.Second))
		}
		at := site
		if part > 0 {
			at = fmt.Sprintf("%s/resume%d", site, part)
		}
		res, err := r.env.Exec.Execute(ctx, at, sandbox.Program{Source: pyShared, Stdin: mark + "\n",
			Files:  map[string]string{"steps.json": string(blob)},
			Limits: sandbox.Limits{Wall: total + 10*time.Second, CPU: total + 10*time.Second}})
		if err != nil {
			return false, "", fmt.Errorf("reflexion_code: %s: %w", at, err)
		}
		var got []string
		reached := -1
		for _, line := range strings.Split(res.Stdout, "\n") {
			rest, ok := strings.CutPrefix(line, mark+" ")
			if !ok {
				continue
			}
			if n, ok := strings.CutPrefix(rest, "at "); ok {
				if i, err := strconv.Atoi(n); err == nil && i == reached+1 {
					reached = i
				}
				continue
			}
			got = append(got, rest)
		}
		var v struct {
			OK     bool   `json:"ok"`
			Output string `json:"output"`
		}
		if len(got) == 1 && json.Unmarshal([]byte(got[0]), &v) == nil {
			return v.OK, v.Output, nil
		}
		if reached >= 0 && reached < len(steps)-1 {
			steps = steps[reached+1:]
			continue
		}
		// The step itself ended the program (or it reported twice).
		if res.Status == sandbox.Timeout || res.Status == sandbox.CPU {
			return false, "TIMEOUT", nil
		}
		return false, "", nil
	}
}

// runTestsShared is runTests in the shared namespace.
func (r *codeRun) runTestsShared(ctx context.Context, n int, impl string) (bool, string, []int, error) {
	before := r.s.prelude()
	for _, it := range r.d.Iterations[:n] {
		before = append(before, r.s.testSteps(it.Impl, r.d.Tests, it.Failed, len(r.d.Tests))...)
	}
	var passed, failed []string
	var failedIdx []int
	secs := r.s.timeout.Seconds()
	for k, test := range r.d.Tests {
		site := fmt.Sprintf("i%d/internal/%d", n, k)
		step := mkStep(r.s.head()+impl+"\n"+test, "", secs)
		ok, _, err := r.runShared(ctx, site, before, step)
		if err != nil {
			return false, "", nil, err
		}
		before = append(before, step)
		if ok {
			passed = append(passed, test)
			continue
		}
		out := mkStep(r.s.head()+impl, test, secs)
		_, value, err := r.runShared(ctx, site+"/output", before, out)
		if err != nil {
			return false, "", nil, err
		}
		before = append(before, out)
		failed = append(failed, test+" # output: "+value)
		failedIdx = append(failedIdx, k)
	}
	return len(failed) == 0, feedback(passed, failed), failedIdx, nil
}

// feedback is the reference's report of a test run.
func feedback(passed, failed []string) string {
	var b strings.Builder
	b.WriteString("Tested passed:")
	for _, t := range passed {
		b.WriteString("\n" + t)
	}
	b.WriteString("\n\nTests failed:")
	for _, t := range failed {
		b.WriteString("\n" + t)
	}
	return b.String()
}

// pyShared runs steps.json's steps in one namespace, seeded as the
// reference's executor module's globals, each under its alarm, and
// reports the last step's outcome on a duplicate of standard output,
// marked with the line standard input gave, after a line naming each
// step as it starts; the steps' own output goes nowhere (descriptors 1
// and 2 too: the reference printed it, nothing ended at a limit). Every
// call to fetch is parsed before any step runs, so a step that patches
// the ast module changes none.
const pyShared = `import ast, io, json, os, signal, sys

def _main():
    mark = sys.stdin.readline().strip()
    with open("steps.json") as f:
        job = json.load(f)
    os.remove("steps.json")
    out = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)

    class Nowhere(io.TextIOBase):
        def write(self, s):
            return len(s)

    calls = []
    for st in job["steps"]:
        node = None
        if st.get("call"):
            try:
                test = ast.parse(st["call"]).body[0].test
                node = test.left if job["mode"] == "left" else getattr(test, "left", test)
                node = compile(ast.Expression(node), "<test>", "eval")
            except Exception as e:
                node = e
        calls.append(node)
    sys.stdout = sys.stderr = Nowhere()
    ns = {"__name__": "executors.py_executor", "__builtins__": __builtins__}
    exec("import ast\nimport signal\nfrom typing import List\n", ns)

    def alarm(signum, frame):
        raise TimeoutError()

    ok, output = False, ""
    for i, (st, call) in enumerate(zip(job["steps"], calls)):
        out.write(mark + " at " + str(i) + "\n")
        signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, st["timeout"])
        try:
            exec(st["code"], ns)
            if st.get("call"):
                if isinstance(call, Exception):
                    raise call
                output = str(eval(call, ns))
            else:
                output = ""
            signal.setitimer(signal.ITIMER_REAL, 0)
            ok = True
        except TimeoutError:
            signal.setitimer(signal.ITIMER_REAL, 0)
            ok, output = False, "TIMEOUT"
        except BaseException as e:
            signal.setitimer(signal.ITIMER_REAL, 0)
            try:
                ok, output = False, str(e)
            except BaseException:
                ok, output = False, ""
    out.write("\n" + mark + " " + json.dumps({"ok": ok, "output": output}) + "\n")

_main()
`
