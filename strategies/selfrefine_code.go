package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// solveCode is Self-Refine on programming tasks with execution feedback
// (protocol=code): the model writes the whole function (selfrefine_code_init,
// call i1/generate); each attempt is run in the sandbox against the
// visible examples only, the docstring's ">>> f(x)" lines with the line
// after each as the expected value (site i<n>/examples), never against the
// hidden tests; the feedback call (selfrefine_code_feedback, i<n>/feedback)
// sees the function and which examples passed, which failed with the value
// returned or the exception's last line, and says the code is correct
// (stop_phrase) or what to change; the refine call (selfrefine_code_refine,
// i<n>/refine) sees every attempt so far with its example results and
// feedback, as the answer protocol's refine does, and writes the function
// again. At most `iterations` functions; no feedback is asked on the last.
//
// This is not a protocol of the paper's code (madaan/self-refine has no
// HumanEval task; its code tasks, pie and readability, give feedback
// without running anything): it is the Self-Refine loop, with the answer
// protocol's history-carrying refine and stop test, given execution
// results as Reflexion's programming runs are. The output is the last
// function, scored once by the task's hidden tests (site "hidden"). For the
// after_iteration_N figures each attempt is also scored by the task, the
// k-th at site hidden/<k> on tasks that record samples apart: the verdicts
// go to the item's metrics only, never into a prompt. MBPP's prompts show
// no examples: there the run only tells whether the function was defined
// without an error.
func (s *selfRefine) solveCode(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	coding, ok := env.Task.(tasks.Coding)
	if !ok {
		return Result{}, fmt.Errorf("selfrefine protocol=code needs a programming task (humaneval, mbpp), not %s", env.Task.Name())
	}
	if env.Exec == nil {
		return Result{}, errors.New("selfrefine protocol=code: the run has no sandbox to execute programs in")
	}
	prob := coding.Problem(inst)
	examples := DocExamples(prob.Prompt, prob.EntryPoint)
	tracer := &stepCounter{Tracer: env.tracer()}
	data := codeRefineData{Prompt: prob.Prompt, EntryPoint: prob.EntryPoint}
	prompt, err := render(env, "selfrefine_code_init", data)
	if err != nil {
		return Result{}, err
	}
	ss, perAttempt := env.Task.(sampleScorer)
	passedAll := false
	its, stoppedBy, err := s.refineLoop(ctx, env, tracer, prompt, refineSteps{
		attempt: func(i int, reply string) (reading.RefineIteration, error) {
			fn := tasks.ExtractCode(reply, prob.EntryPoint)
			run, err := runExamples(ctx, env, inst, fmt.Sprintf("i%d/examples", i), prob, fn, examples, s.limits)
			if err != nil {
				return reading.RefineIteration{}, err
			}
			passedAll = run.allPassed()
			var sc tasks.Score
			if perAttempt {
				sc = ss.ScoreSample(inst, reply, i)
			} else {
				sc = env.Task.Score(inst, reply)
			}
			it := reading.RefineIteration{Iteration: i, Output: reply, Answer: sc.Answer, Correct: sc.Correct, Metrics: sc.Metrics,
				Program: fn, Status: run.status, Error: run.err, Examples: run.feedback}
			if err := tracer.Step(ctx, 0, tracer.n, "program", fn); err != nil {
				return it, err
			}
			return it, tracer.Step(ctx, 0, tracer.n, "observation", run.feedback)
		},
		feedback: func(cur reading.RefineIteration) (string, error) {
			return render(env, "selfrefine_code_feedback", codeRefineData{Prompt: prob.Prompt, EntryPoint: prob.EntryPoint,
				Code: strings.TrimSpace(cur.Program), Results: cur.Examples})
		},
		refine: func(its []reading.RefineIteration) (string, error) {
			rd := codeRefineData{Prompt: prob.Prompt, EntryPoint: prob.EntryPoint}
			for _, it := range its {
				rd.History = append(rd.History, codeAttempt{Iteration: it.Iteration, Code: strings.TrimSpace(it.Program),
					Results: it.Examples, Feedback: it.Feedback})
			}
			return render(env, "selfrefine_code_refine", rd)
		},
	})
	if err != nil {
		return Result{}, err
	}
	res := s.result(env, inst, its, stoppedBy)
	res.Metrics["examples"] = float64(len(examples))
	res.Metrics["examples_pass"] = boolFloat(passedAll)
	return res, nil
}

// codeRefineData is what the selfrefine_code templates see.
type codeRefineData struct {
	Prompt     string // the signature and docstring
	EntryPoint string
	Code       string        // feedback: the function judged
	Results    string        // feedback: its example results
	History    []codeAttempt // refine: every attempt so far
}

// codeAttempt is an earlier attempt as the refine template sees it: no
// hidden-test verdict.
type codeAttempt struct {
	Iteration int
	Code      string
	Results   string
	Feedback  string
}

// CodeExample is one docstring example: a call and the expected value, as
// Python source.
type CodeExample struct {
	Call     string `json:"call"`     // "add(1, 2)"
	Expected string `json:"expected"` // "3"
}

// maxExamples bounds the examples run per attempt.
const maxExamples = 20

// DocExamples reads the examples of a problem's prompt: each ">>> entry(…)"
// line whose call is the whole line, with the next line as the expected
// value (a line that is blank or another ">>>" gives none). Examples of
// other functions and other doctest forms are left out.
func DocExamples(prompt, entry string) []CodeExample {
	if entry == "" {
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(prompt, "\r\n", "\n"), "\n")
	var out []CodeExample
	seen := map[string]bool{}
	for i := 0; i+1 < len(lines) && len(out) < maxExamples; i++ {
		l := strings.TrimSpace(lines[i])
		call, ok := strings.CutPrefix(l, ">>>")
		call = strings.TrimSpace(call)
		if !ok || !strings.HasPrefix(call, entry+"(") || !strings.HasSuffix(call, ")") {
			continue
		}
		want := strings.TrimSpace(lines[i+1])
		if want == "" || strings.HasPrefix(want, ">>>") || strings.Contains(want, `"""`) || seen[call] {
			continue
		}
		seen[call] = true
		out = append(out, CodeExample{Call: call, Expected: want})
	}
	return out
}

// exampleRun is how one attempt fared on the visible examples.
type exampleRun struct {
	status, err string // the sandbox's status; why nothing was reported
	ran         bool   // the program was defined and every example was tried
	passed      []bool
	feedback    string // what the feedback and refine prompts show
}

func (r exampleRun) allPassed() bool {
	if !r.ran {
		return false
	}
	for _, p := range r.passed {
		if !p {
			return false
		}
	}
	return true
}

// exampleReport is the driver's report.
type exampleReport struct {
	Error   string `json:"error"`
	Results []struct {
		Pass  bool   `json:"pass"`
		Got   string `json:"got"`
		Error string `json:"error"`
	} `json:"results"`
}

// runExamples runs fn against the examples in one sandboxed program: the
// prompt (its imports and helpers) then fn, as the task assembles it for
// the hidden tests, then each example under its own alarm. An error is the
// sandbox failing, not the program.
func runExamples(ctx context.Context, env Env, inst tasks.Instance, site string, prob tasks.CodeProblem, fn string,
	examples []CodeExample, lim sandbox.Limits) (exampleRun, error) {
	var run exampleRun
	fail := func(status, why string) exampleRun {
		run.status, run.err = status, why
		run.feedback = examplesFeedback(examples, nil, "The program did not run to the end: "+why)
		return run
	}
	if strings.TrimSpace(fn) == "" {
		return fail("no_program", "the reply has no code"), nil
	}
	if len(fn) > tasks.MaxCode {
		return fail("too_long", fmt.Sprintf("the code is %d bytes long (limit %d)", len(fn), tasks.MaxCode)), nil
	}
	src := prob.Prompt
	if !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	src += fn + "\n"
	secs := int(math.Ceil(lim.Wall.Seconds()))
	if secs < 1 {
		secs = 1
	}
	if examples == nil {
		examples = []CodeExample{} // a list to the driver, not null
	}
	args, _ := json.Marshal(map[string]any{"examples": examples, "timeout": secs})
	mark := exampleMarker(env.Seed, inst.Key, site)
	// Every example may take its alarm, the definition one more.
	total := time.Duration(len(examples)+2) * time.Duration(secs) * time.Second
	res, err := env.Exec.Execute(ctx, site, sandbox.Program{Source: pyExamples, Stdin: mark + "\n",
		Files: map[string]string{"solution.py": src, "examples.json": string(args)}, Limits: sandbox.Limits{Wall: total, CPU: total}})
	if err != nil {
		return run, fmt.Errorf("run %s: %w", site, err)
	}
	run.status = string(res.Status)
	var rep exampleReport
	found := false
	for _, l := range strings.Split(res.Stdout, "\n") {
		if body, ok := strings.CutPrefix(l, mark+" "); ok {
			found = json.Unmarshal([]byte(body), &rep) == nil
		}
	}
	switch {
	case !found:
		why := res.Reason()
		if last := lastErrorLine(res.Stderr); last != "" {
			why += ": " + last
		}
		return fail(run.status, why), nil
	case rep.Error != "":
		return fail("error", rep.Error), nil
	case len(rep.Results) != len(examples):
		return fail("error", "the examples' report is incomplete"), nil
	}
	run.ran = true
	var lines []string
	for k, r := range rep.Results {
		run.passed = append(run.passed, r.Pass)
		line := fmt.Sprintf("assert %s == %s  # ", examples[k].Call, examples[k].Expected)
		switch {
		case r.Pass:
			line += "passed"
		case r.Error != "":
			line += "failed: raised " + r.Error
		default:
			line += "failed: returned " + r.Got
		}
		lines = append(lines, line)
	}
	run.feedback = examplesFeedback(examples, lines, "")
	return run, nil
}

// examplesFeedback is the execution feedback the prompts show: a count
// line, then one line per example, or why none could run.
func examplesFeedback(examples []CodeExample, lines []string, failure string) string {
	var b strings.Builder
	if len(examples) == 0 {
		b.WriteString("The docstring shows no examples to run.")
		if failure == "" {
			b.WriteString(" The function was defined without an error.")
		} else {
			b.WriteString(" " + failure)
		}
		return b.String()
	}
	passed := 0
	for _, l := range lines {
		if strings.HasSuffix(l, "# passed") {
			passed++
		}
	}
	fmt.Fprintf(&b, "Examples passed: %d of %d.", passed, len(examples))
	if failure != "" {
		b.WriteString(" " + failure)
		return b.String()
	}
	for _, l := range lines {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// lastErrorLine is the last non-blank line of standard error (a
// traceback's exception), cut to 300 bytes.
func lastErrorLine(stderr string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 300 {
				l = l[:300] + "..."
			}
			return l
		}
	}
	return ""
}

// exampleMarker starts the driver's report line. It is derived from the
// run's seed, which the model never sees, so the model's code cannot print
// a report of its own, and it is the same in a rerun.
func exampleMarker(seed int64, key, site string) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", seed, key, site)
	return fmt.Sprintf("selfrefine-examples-%016x", h.Sum64())
}

// pyExamples defines solution.py in a fresh namespace and evaluates each
// example's call and expected value there, under an alarm; it writes its
// report on a duplicate of standard output after the marker read on
// standard input, so that what the program prints cannot be taken for it.
// An expected value that does not evaluate is compared as text with the
// call's repr.
const pyExamples = `import json, os, signal, sys

def _last(e):
    s = (type(e).__name__ + ": " + str(e)).strip().splitlines()
    s = s[-1] if s else type(e).__name__
    return s[:300]

def _alarm(signum, frame):
    raise TimeoutError("the example took too long")

def _main():
    mark = sys.stdin.readline().strip()
    out = os.fdopen(os.dup(1), "w")
    args = json.load(open("examples.json"))
    secs = int(args["timeout"])
    rep = {"error": "", "results": []}
    signal.signal(signal.SIGALRM, _alarm)
    g = {"__name__": "__main__"}
    try:
        signal.alarm(secs)
        exec(compile(open("solution.py").read(), "solution.py", "exec"), g)
        signal.alarm(0)
    except BaseException as e:
        signal.alarm(0)
        rep["error"] = _last(e)
        out.write("\n" + mark + " " + json.dumps(rep) + "\n")
        out.flush()
        return
    for ex in args["examples"]:
        r = {"pass": False, "got": "", "error": ""}
        try:
            signal.alarm(secs)
            got = eval(ex["call"], g)
            r["got"] = repr(got)[:300]
            try:
                want = eval(ex["expected"], dict(g))
                r["pass"] = bool(got == want)
            except Exception:
                r["pass"] = repr(got) == ex["expected"]
            signal.alarm(0)
        except BaseException as e:
            signal.alarm(0)
            r["error"] = _last(e)
        rep["results"].append(r)
    out.write("\n" + mark + " " + json.dumps(rep) + "\n")
    out.flush()

_main()
`
