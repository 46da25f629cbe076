package strategies

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// reflexionCode is the Reflexion reference implementation's programming
// protocol (noahshinn/reflexion: reflexion.py, simple.py,
// generators/py_generate.py, executors/py_executor.py), call for call:
//
//   - strategy=reflexion: the model writes unit tests for the signature
//     (one call, "i0/tests"); the lines containing "assert" that parse as
//     Python are kept, at most max_tests of them; the first implementation
//     ("i0/impl") is run against every internal test, one sandboxed
//     program per test ("i<n>/internal/<k>", the per-test timeout); on a
//     failure the failing call's value is fetched by a second program
//     ("…/output") for the feedback "Tested passed:\n…\n\nTests failed:\n
//     <assert> # output: <value>"; then up to max_iters-1 times a
//     self-reflection on the implementation and its feedback
//     ("i<n>/reflect") and an improved implementation ("i<n>/impl");
//   - pass@1: the hidden tests (the task's Score) run once, on the first
//     implementation that passes every internal test or on the last one
//     (with max_iters=1 and a failing first implementation the reference
//     runs none, and the item is unsolved);
//   - strategy=simple: one implementation, scored directly (no tests);
//   - version=b448a9b (the code of the logged GPT-4 MBPP run, April 2023):
//     each call is a system instruction and one user message; the model's
//     answer is a function body appended to the signature after the
//     reference's fixes: a first implementation's answer is tidied
//     (fixFirst: lines before a column-0 def indented, def lines dropped,
//     fences removed), an improved one's tidied and then its indentation
//     settled (fixIndent: as tidied, then with the first line indented,
//     then with every line indented, the first whose stub function
//     compiles and runs without a SyntaxError); both run in the sandbox;
//     no code-block parsing; tests run as implementation + "\n" + assert;
//   - version=current (today's programming_runs/): system instructions end
//     with a code-block instruction, the improved implementation is asked
//     in a six-message chat (instruction, examples, previous
//     implementation as the assistant's turn, feedback, reflection as the
//     assistant's turn, signature), answers are whole functions parsed out
//     of a ```python block, tests run under "from typing import *", the
//     reflection prompt is labelled and carries examples, and the test
//     generator keeps one test (max_num_tests is passed 1 by a changed
//     signature).
//
// Differences, all deliberate: every test, output fetch and syntax check
// runs in a sandboxed process, where the reference exec'd them in its own
// interpreter's globals, shared by every problem of a run (a problem
// defining `sum` changed later verdicts there). By default
// (namespace=isolated) nothing carries over; namespace=shared (the
// reflexion presets) keeps one sandboxed interpreter per run that execs
// every test and output fetch in order in one namespace
// (reflexion_code_shared.go, reflexion_code_session.go), all but the
// hidden tests;
// the indentation fix runs the answer as the reference did but under a
// limit, and a run that ended the reference's process (SystemExit) or
// never ended is a recorded failure here (fixIndent); when more tests
// parse than max_tests the reference drew them with Python's unseeded
// random.sample, here a PCG seeded by the run's seed and the problem
// draws them (order kept), so a run repeats itself.
type reflexionCode struct {
	version, strategy           string
	maxIters, maxTests          int
	maxTokens, testMaxTokens    int
	timeout, indentTimeout      time.Duration
	temperature                 *float64
	withTyping, codeBlocks, six bool
	// shared (namespace=shared): internal tests run after the execs of
	// the problems before them (reflexion_code_shared.go); steps are
	// those execs, in run order.
	shared bool
	mu     sync.Mutex
	steps  []nsStep
	ns     nsSession // the interpreter holding the namespace
}

// Reflexion code protocol versions.
const (
	CodeVersionLogged  = "b448a9b"
	CodeVersionCurrent = "current"
)

var reflexionCodeParams = []param.Param{
	{Name: "strategy", Kind: param.String, Default: "reflexion", Allowed: []string{"simple", "reflexion"}, Show: true,
		Doc: "the reference's strategies: simple (one implementation, scored) or reflexion (internal tests, self-reflection, improved implementations)"},
	{Name: "version", Kind: param.String, Default: CodeVersionLogged, Allowed: []string{CodeVersionLogged, CodeVersionCurrent}, Show: true,
		Doc: "b448a9b: the code of the logged GPT-4 runs (system + one user message, function bodies, indentation fix); current: today's programming_runs (six-message chat, ```python blocks, one internal test)"},
	{Name: "max_iters", Kind: param.Int, Default: 5, Min: param.Bound(1), Max: param.Bound(100), Show: true,
		Doc: "implementations at most (the logged MBPP run: 5, HumanEval: 10)"},
	{Name: "max_tests", Kind: param.Int, Default: 0, Min: param.Bound(0), Max: param.Bound(100),
		Doc: "internal tests kept at most (0: the version's, 5 for b448a9b and 1 for current)"},
	{Name: "test_timeout", Kind: param.Float, Default: 5.0, Min: param.Bound(0.1), Max: param.Bound(600),
		Doc: "seconds an internal test may run (the reference: 5)"},
	temperatureParam("temperature", 0.0, "sampling temperature of every call (the reference: 0)"),
	{Name: "indent_timeout", Kind: param.Float, Default: 10.0, Min: param.Bound(0.1), Max: param.Bound(600), Late: true,
		Doc: "seconds (wall and CPU) b448a9b's indentation fix may run an answer (the reference: no limit); past it the fix keeps the state it was trying, recorded as an error step"},
	{Name: "namespace", Kind: param.String, Default: "isolated", Allowed: []string{"isolated", "shared"}, Show: true,
		Doc: "isolated: each internal test its own program with only the implementation; shared: as the reference, each test sees what every earlier problem's tests exec'd (run in range order, one problem at a time; replayed in the sandbox)"},
	{Name: "max_tokens", Kind: param.Int, Default: 256, Min: param.Bound(1),
		Doc: "completion limit of implementation and reflection calls (the reference's default: 256)"},
	{Name: "test_max_tokens", Kind: param.Int, Default: 1024, Min: param.Bound(1),
		Doc: "completion limit of the test-writing call (the reference: 1024)"},
}

func newReflexionCode(v param.Values) (Strategy, error) {
	v = v.WithDefaults(reflexionCodeParams) // indent_timeout is Late: absent at its default
	s := &reflexionCode{version: v.String("version"), strategy: v.String("strategy"), maxIters: v.Int("max_iters"),
		maxTests: v.Int("max_tests"), maxTokens: v.Int("max_tokens"), testMaxTokens: v.Int("test_max_tokens"),
		timeout:       time.Duration(v.Float("test_timeout") * float64(time.Second)),
		indentTimeout: time.Duration(v.Float("indent_timeout") * float64(time.Second)), temperature: v.Temperature("temperature"),
		shared: v.String("namespace") == "shared"}
	current := s.version == CodeVersionCurrent
	s.withTyping, s.codeBlocks, s.six = current, current, current
	if s.maxTests == 0 {
		s.maxTests = 5
		if current {
			s.maxTests = 1
		}
	}
	return s, nil
}

// NeedsSandbox: implementations are checked and tested in the sandbox.
func (s *reflexionCode) NeedsSandbox() string {
	return "reflexion_code runs the model's internal tests and checks its code's syntax in the sandbox"
}

// NeedsChat: every call carries a system instruction.
func (s *reflexionCode) NeedsChat() string {
	return "reflexion_code sends the reference's chat prompts (a system instruction and user turns)"
}

// CheckTask needs a programming task.
func (s *reflexionCode) CheckTask(t tasks.Task) error {
	if _, ok := t.(tasks.Coding); !ok {
		return fmt.Errorf("reflexion_code needs a programming task (humaneval, mbpp), not %s", t.Name())
	}
	return nil
}

// reflexionCodeTemplates are the templates reflexion_code renders (Spec.Templates).
func reflexionCodeTemplates(v param.Values) []string {
	prefix := "reflexion_code_"
	current := v.String("version") == CodeVersionCurrent
	if current {
		prefix += "current_"
	}
	names := []string{"simple_system"}
	if current {
		names = append(names, "codeblock")
	}
	if v.String("strategy") == "reflexion" {
		names = append(names, "tests_system", "tests_examples")
		if v.Int("max_iters") > 1 { // improvements: a reflection, then an implementation
			names = append(names, "reflexion_system", "reflect_system")
			if current {
				names = append(names, "reflexion_examples", "reflect_examples")
			}
		}
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// CodeIteration is one implementation and what became of it.
type CodeIteration struct {
	Reflection string `json:"reflection,omitempty"` // written before this implementation
	Answer     string `json:"answer"`               // the model's reply
	Impl       string `json:"impl"`                 // the function as assembled
	Feedback   string `json:"feedback,omitempty"`   // internal tests' results
	Passed     bool   `json:"passed"`               // every internal test passed
	// Failed are the indices of the internal tests that failed
	// (namespace=shared only: later problems replay their output fetches).
	Failed []int `json:"failed,omitempty"`
}

// CodeDetail is what a reflexion_code item stores.
type CodeDetail struct {
	Version    string          `json:"version"`
	Strategy   string          `json:"strategy"`
	TestsReply string          `json:"tests_reply,omitempty"`
	Tests      []string        `json:"tests,omitempty"` // the internal tests kept
	Iterations []CodeIteration `json:"iterations"`
	// Evaluated is the implementation the hidden tests ran on (its index
	// in Iterations), -1 when none ran.
	Evaluated int `json:"evaluated"`
}

// codeRun is one item's run.
type codeRun struct {
	s    *reflexionCode
	env  Env
	inst tasks.Instance
	prob tasks.CodeProblem
	d    CodeDetail
	// trial and step are where the next trace step goes.
	trial, step int
}

func (s *reflexionCode) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	coding, ok := env.Task.(tasks.Coding)
	if !ok {
		return Result{}, s.CheckTask(env.Task)
	}
	if env.Exec == nil {
		return Result{}, errors.New("reflexion_code: the run has no sandbox (Env.Exec)")
	}
	r := &codeRun{s: s, env: env, inst: inst, prob: coding.Problem(inst),
		d: CodeDetail{Version: s.version, Strategy: s.strategy, Evaluated: -1}}
	next := 0
	if env.Checkpoint != nil {
		n, ok, err := env.Checkpoint.Load(ctx, &r.d)
		if err != nil {
			return Result{}, err
		}
		if !ok {
			r.d = CodeDetail{Version: s.version, Strategy: s.strategy, Evaluated: -1}
		} else if n != len(r.d.Iterations) || n > s.maxIters {
			return Result{}, fmt.Errorf("reflexion_code: checkpoint says iteration %d is next but holds %d", n, len(r.d.Iterations))
		}
		next = n
	}
	if s.strategy == "simple" {
		if next == 0 {
			if err := r.implement(ctx, 0, false); err != nil {
				return Result{}, err
			}
		}
		return r.done(0), nil
	}
	for n := next; n < s.maxIters; n++ {
		if n > 0 && r.d.Iterations[n-1].Passed {
			break
		}
		if n == 0 {
			if err := r.writeTests(ctx); err != nil {
				return Result{}, err
			}
		}
		if err := r.implement(ctx, n, true); err != nil {
			return Result{}, err
		}
		if env.Checkpoint != nil {
			if err := env.Checkpoint.Save(ctx, n+1, r.d); err != nil {
				return Result{}, err
			}
		}
	}
	last := len(r.d.Iterations) - 1
	if !r.d.Iterations[last].Passed && len(r.d.Iterations) == 1 && s.maxIters == 1 {
		// The reference's loop of improvements never ran: no hidden tests.
		last = -1
	}
	return r.done(last), nil
}

// done scores the implementation at index ev and, in the shared
// namespace, hands the problem's execs to the problems after it.
func (r *codeRun) done(ev int) Result {
	res := r.result(ev)
	if r.s.shared {
		r.s.finish(res.Detail.(CodeDetail))
	}
	return res
}

// result scores the implementation at index ev once (pass@1).
func (r *codeRun) result(ev int) Result {
	last := r.d.Iterations[len(r.d.Iterations)-1]
	res := Result{Output: last.Impl, Detail: r.d,
		Metrics: map[string]float64{"iterations": float64(len(r.d.Iterations)), "internal_pass": b2f(last.Passed)}}
	if ev < 0 {
		res.Score = tasks.Score{Reason: "hidden tests not run: the only implementation failed its internal tests (max_iters=1)"}
		return res
	}
	r.d.Evaluated = ev
	res.Detail = r.d
	res.Score = r.env.Task.Score(r.inst, r.d.Iterations[ev].Impl)
	if res.Score.Correct {
		res.Accuracy = 1
	}
	return res
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// trace appends a step to iteration trial's trajectory (steps count from
// 0 in every iteration, so a resumed iteration writes the same steps).
func (r *codeRun) trace(ctx context.Context, trial int, kind, content string) error {
	if trial != r.trial {
		r.trial, r.step = trial, 0
	}
	err := r.env.tracer().Step(ctx, trial, r.step, kind, content)
	r.step++
	return err
}

// ask sends one call: the system instruction and the user turns
// (alternating user/assistant after the system message).
func (r *codeRun) ask(ctx context.Context, system string, turns []string, purpose, call string, maxTokens int) (string, error) {
	msgs := []llm.Message{{Role: "system", Content: system}}
	for i, t := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, llm.Message{Role: role, Content: t})
	}
	resp, err := r.env.Sampler.Sample(ctx, llm.Request{Messages: msgs, Temperature: r.s.temperature,
		MaxTokens: maxTokens, Purpose: purpose, Call: call})
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", errNoChoices(purpose)
	}
	return resp.Choices[0].Content, nil
}

// CodeTemplateData is what the programming templates see.
type CodeTemplateData struct {
	Prompt, EntryPoint string
}

// tmpl renders the version's template called name: under the task's
// folder, reflexion_code_<name> (b448a9b) or reflexion_code_current_<name>.
func (r *codeRun) tmpl(name string) (string, error) {
	prefix := "reflexion_code_"
	if r.s.version == CodeVersionCurrent {
		prefix += "current_"
	}
	return render(r.env, prefix+name, CodeTemplateData{Prompt: r.prob.Prompt, EntryPoint: r.prob.EntryPoint})
}

// system is an instruction template, followed by the code-block
// instruction in the current version.
func (r *codeRun) system(name string) (string, error) {
	text, err := r.tmpl(name)
	if err != nil {
		return "", err
	}
	if r.s.codeBlocks {
		cb, err := r.tmpl("codeblock")
		if err != nil {
			return "", err
		}
		text += "\n" + cb
	}
	return text, nil
}

// writeTests asks for the internal tests and keeps the valid ones.
func (r *codeRun) writeTests(ctx context.Context) error {
	system, err := r.tmpl("tests_system")
	if err != nil {
		return err
	}
	examples, err := r.tmpl("tests_examples")
	if err != nil {
		return err
	}
	user := examples + "\n\nfunc signature:\n" + r.prob.Prompt + "\nunit tests:"
	reply, err := r.ask(ctx, system, []string{user}, "tests", "i0/tests", r.s.testMaxTokens)
	if err != nil {
		return err
	}
	r.d.TestsReply = reply
	var cands []string
	for _, line := range strings.Split(reply, "\n") {
		if strings.Contains(line, "assert") {
			cands = append(cands, strings.TrimSpace(line))
		}
	}
	valid, err := r.validTests(ctx, cands)
	if err != nil {
		return err
	}
	r.d.Tests = SampleTests(valid, r.s.maxTests, r.env.Seed, r.inst.Key)
	return r.trace(ctx, 0, "tests", strings.Join(r.d.Tests, "\n"))
}

// splitLines is Python's str.splitlines for the separators a model writes.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// SampleTests keeps at most n tests: all of them in order when there are
// no more than n, else n drawn by a PCG seeded from the run's seed and the
// problem, in their original order.
func SampleTests(tests []string, n int, seed int64, key string) []string {
	if n >= len(tests) {
		return tests
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	idx := rng.Perm(len(tests))[:n]
	keep := make([]bool, len(tests))
	for _, i := range idx {
		keep[i] = true
	}
	var out []string
	for i, t := range tests {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}

// validTests checks in the sandbox which candidates parse as Python.
func (r *codeRun) validTests(ctx context.Context, cands []string) ([]string, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	in, _ := json.Marshal(cands)
	res, err := r.env.Exec.Execute(ctx, "i0/tests/parse", sandbox.Program{Source: pyParseTests,
		Files: map[string]string{"cands.json": string(in)}, Limits: sandbox.Limits{Wall: 30 * time.Second}})
	if err != nil {
		return nil, fmt.Errorf("reflexion_code: checking the tests' syntax: %w", err)
	}
	var ok []bool
	if !res.Passed() || json.Unmarshal([]byte(lastLine(res.Stdout)), &ok) != nil || len(ok) != len(cands) {
		// The checker itself failed (an enormous reply): keep no test.
		return nil, r.trace(ctx, 0, "error", "the tests' syntax check failed: "+res.Reason())
	}
	var out []string
	for i, c := range cands {
		if ok[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// implement asks for implementation n (a reflection first when n > 0)
// and, when test, runs the internal tests on it.
func (r *codeRun) implement(ctx context.Context, n int, test bool) error {
	it := CodeIteration{}
	var system string
	var turns []string
	var err error
	if n == 0 {
		if system, err = r.system("simple_system"); err != nil {
			return err
		}
		turns = []string{r.prob.Prompt}
	} else {
		prev := r.d.Iterations[n-1]
		if it.Reflection, err = r.reflect(ctx, n, prev); err != nil {
			return err
		}
		if system, err = r.system("reflexion_system"); err != nil {
			return err
		}
		if r.s.six {
			examples, err := r.tmpl("reflexion_examples")
			if err != nil {
				return err
			}
			turns = []string{examples, AddCodeBlock(prev.Impl),
				"[unit test results from previous impl]:\n" + prev.Feedback + "\n\n[reflection on previous impl]:",
				it.Reflection, "[improved impl]:\n" + r.prob.Prompt}
		} else {
			turns = []string{"previous implementation:\n" + prev.Impl + "\n\nunit tests:\n" + prev.Feedback +
				"\n\nhint:\n" + it.Reflection + "\n\n# improved implementation\n" + r.prob.Prompt}
		}
	}
	if it.Answer, err = r.ask(ctx, system, turns, "implementation", fmt.Sprintf("i%d/impl", n), r.s.maxTokens); err != nil {
		return err
	}
	if it.Impl, err = r.assemble(ctx, n, it.Answer); err != nil {
		return err
	}
	if err := r.trace(ctx, n, "implementation", it.Impl); err != nil {
		return err
	}
	if test {
		if r.s.shared {
			it.Passed, it.Feedback, it.Failed, err = r.runTestsShared(ctx, n, it.Impl)
		} else {
			it.Passed, it.Feedback, err = r.runTests(ctx, n, it.Impl)
		}
		if err != nil {
			return err
		}
		if err := r.trace(ctx, n, "feedback", it.Feedback); err != nil {
			return err
		}
	}
	r.d.Iterations = append(r.d.Iterations, it)
	return nil
}

// reflect asks for the self-reflection on the previous implementation.
func (r *codeRun) reflect(ctx context.Context, n int, prev CodeIteration) (string, error) {
	system, err := r.tmpl("reflect_system")
	if err != nil {
		return "", err
	}
	user := prev.Impl + "\n\n" + prev.Feedback + "\n\nExplanation:"
	if r.s.six {
		examples, err := r.tmpl("reflect_examples")
		if err != nil {
			return "", err
		}
		user = examples + "\n\n[function impl]:\n" + AddCodeBlock(prev.Impl) + "\n\n[unit test results]:\n" +
			prev.Feedback + "\n\n[self-reflection]:"
	}
	out, err := r.ask(ctx, system, []string{user}, "reflection", fmt.Sprintf("i%d/reflect", n), r.s.maxTokens)
	if err != nil {
		return "", err
	}
	return out, r.trace(ctx, n, "reflection", out)
}

// AddCodeBlock wraps code in a ```python block, as the current version
// shows implementations.
func AddCodeBlock(code string) string { return "```python\n" + code + "\n```" }

var (
	pyBlock      = regexp.MustCompile("(?s)```python\n(.*?)\n```")
	genericBlock = regexp.MustCompile("(?s)```\n(.*?)\n```")
)

// ParseCodeBlock is the current version's reading of an answer: the first
// ```python block, else the first plain ``` block, else from the first
// line starting with "def " (with the lines before it that are imports)
// to the end.
func ParseCodeBlock(s string) string {
	if m := pyBlock.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if m := genericBlock.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "def ") {
			return strings.Join(lines[i:], "\n")
		}
	}
	return s
}

// assemble turns an answer into the function the tests run: the current
// version's whole function from the code block; b448a9b's signature plus
// the body fixed as the reference fixed it. The reference asked the first
// implementation with its strategy "simple", whose fix is the answer's
// tidying alone (fixFirst), and each improved one with "reflexion", whose
// fix tidies the answer and then runs it to settle its indentation
// (fixIndent): noahshinn/reflexion generators/py_generate.py, PyGenerator
// passing fix_body to generic_generate_func_impl.
func (r *codeRun) assemble(ctx context.Context, n int, answer string) (string, error) {
	if r.s.codeBlocks {
		return ParseCodeBlock(answer), nil
	}
	site := fmt.Sprintf("i%d/indent", n)
	var body, failure string
	var err error
	if n == 0 {
		body, failure, err = r.fixFirst(ctx, site, answer)
	} else {
		body, failure, err = r.fixIndent(ctx, site, answer)
	}
	if err != nil {
		return "", err
	}
	if failure != "" {
		if err := r.trace(ctx, n, "error", "indentation fix failed: "+failure); err != nil {
			return "", err
		}
	}
	return r.prob.Prompt + body, nil
}

// fixFirst is the reference's fix of a first implementation
// (fix_turbo_response): the answer tidied (pyTidy), nothing run. It runs
// in the sandbox for Python's own reading of the text (str.split,
// str.strip, re's Unicode classes); failure says why it did not, and body
// is then the answer as written.
func (r *codeRun) fixFirst(ctx context.Context, site, answer string) (body, failure string, err error) {
	in, _ := json.Marshal(answer)
	res, err := r.env.Exec.Execute(ctx, site, sandbox.Program{Source: pyTidyFirst,
		Files:  map[string]string{"body.json": string(in)},
		Limits: sandbox.Limits{Wall: 30 * time.Second, Output: 8*int64(len(answer)) + 1<<16}})
	if err != nil {
		return "", "", fmt.Errorf("reflexion_code: the first implementation's fix: %w", err)
	}
	if res.Passed() && json.Unmarshal([]byte(lastLine(res.Stdout)), &body) == nil {
		return body, "", nil
	}
	return answer, "it did not run (" + cmp.Or(res.Reason(), "no answer") + ")", nil
}

// fixIndent is the reference's fix of an improved implementation
// (py_fix_indentation), run in the sandbox: the answer tidied as fixFirst
// tidies it is defined as the body of a stub function, which is then
// called (state 0); if that raises a SyntaxError (an IndentationError
// too), at compile time or while running, the tidied body with its first
// line indented (unless it starts with four spaces) is tried the same way
// (state 1), and if that raises one too, the tidied body with every line
// indented is taken unchecked (state 2); any other exception keeps the
// state's body.
//
// Where the reference made no decision (its process ended, hung, or the
// first-line fix raised IndexError on an empty answer) failure says why,
// and body is that of the state being run (the tidied answer at state 0),
// the decision an ordinary exception would have made there.
func (r *codeRun) fixIndent(ctx context.Context, site, answer string) (body, failure string, err error) {
	in, _ := json.Marshal(answer)
	mark := r.sentinel(site)
	limit := r.s.indentTimeout
	res, err := r.env.Exec.Execute(ctx, site, sandbox.Program{Source: pyFixIndent, Stdin: mark + "\n",
		Files:  map[string]string{"body.json": string(in)},
		Limits: sandbox.Limits{Wall: limit, CPU: limit, Output: 64*int64(len(answer)) + 1<<16}})
	if err != nil {
		return "", "", fmt.Errorf("reflexion_code: the indentation fix: %w", err)
	}
	var cands []*string // the tidied body, and the state-1 and state-2 bodies, nil where none
	reached := -1
	var decided []string
	for _, line := range strings.Split(res.Stdout, "\n") {
		rest, ok := strings.CutPrefix(line, mark+" ")
		if !ok {
			continue
		}
		if c, ok := strings.CutPrefix(rest, "candidates "); ok {
			// Only the first: it was written before the answer ran.
			if cands == nil && (json.Unmarshal([]byte(c), &cands) != nil || len(cands) != 3 || cands[0] == nil || cands[2] == nil) {
				cands = []*string{nil, nil, nil}
			}
			continue
		}
		if k, ok := strings.CutPrefix(rest, "at "); ok {
			if i, err := strconv.Atoi(k); err == nil && i == reached+1 && i <= 1 {
				reached = i
			}
			continue
		}
		decided = append(decided, rest)
	}
	if cands == nil || cands[0] == nil {
		// The fix never started (an enormous answer): the body as written.
		return answer, "it did not start (" + cmp.Or(res.Reason(), "no candidates") + ")", nil
	}
	states := cands
	if len(decided) == 1 {
		if k, ok := strings.CutPrefix(decided[0], "state "); ok {
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i <= 2 && states[i] != nil {
				return *states[i], "", nil
			}
		}
	}
	// No decision: the body of the state being run.
	body = *states[0]
	if reached >= 0 && states[reached] != nil {
		body = *states[reached]
	}
	name, raised := "", false
	if len(decided) == 1 {
		name, raised = strings.CutPrefix(decided[0], "raised ")
	}
	switch {
	case len(decided) > 1:
		failure = "it reported more than one decision"
	case raised && name == "IndexError" && reached == 0 && cands[1] == nil:
		failure = "an answer without lines (the reference's first-line fix raised IndexError)"
	case raised && pyName.MatchString(name):
		failure = "the answer raised " + name + ", which the reference's fix does not catch (its process ended)"
	case len(decided) == 1:
		failure = "an unreadable decision"
	default:
		failure = cmp.Or(res.Reason(), "it ended without a decision")
	}
	return body, failure, nil
}

// pyName is a Python exception class's name.
var pyName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,99}$`)

// runTests runs every internal test on impl, each its own program.
func (r *codeRun) runTests(ctx context.Context, n int, impl string) (bool, string, error) {
	head := ""
	if r.s.withTyping {
		head = "from typing import *\n"
	}
	var passed, failed []string
	secs := int(r.s.timeout / time.Second)
	if secs < 1 {
		secs = 1
	}
	for k, test := range r.d.Tests {
		site := fmt.Sprintf("i%d/internal/%d", n, k)
		mark := r.sentinel(site)
		res, err := r.env.Exec.Execute(ctx, site, sandbox.Program{Source: head + impl + "\n" + test + "\nprint('\\n" + mark + "')\n",
			Limits: sandbox.Limits{Wall: r.s.timeout, CPU: r.s.timeout}})
		if err != nil {
			return false, "", fmt.Errorf("reflexion_code: internal test %s: %w", site, err)
		}
		if res.Passed() && !res.Truncated && lastLine(res.Stdout) == mark {
			passed = append(passed, test)
			continue
		}
		out, err := r.output(ctx, site+"/output", head+impl, test, secs)
		if err != nil {
			return false, "", err
		}
		failed = append(failed, test+" # output: "+out)
	}
	return len(failed) == 0, feedback(passed, failed), nil
}

// sentinel is the line a test program prints once its assert passed: a
// program that exits early with status 0 (sys.exit(0), os._exit(0)) has
// not passed. It is derived from the run's seed, which the model never
// sees, so its code cannot print it, and it is the same in a rerun.
func (r *codeRun) sentinel(site string) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s", r.env.Seed, r.inst.Key, site)
	return fmt.Sprintf("reflexion-code-ok-%016x", h.Sum64())
}

// output is the reference's get_output: the value of the assert's left
// side (its whole test in the current version when it is no comparison),
// "TIMEOUT", or the exception's message.
func (r *codeRun) output(ctx context.Context, site, impl, test string, secs int) (string, error) {
	mode := "left"
	if r.s.version == CodeVersionCurrent {
		mode = "left_or_test"
	}
	args, _ := json.Marshal(map[string]any{"test": test, "timeout": secs, "mode": mode})
	res, err := r.env.Exec.Execute(ctx, site, sandbox.Program{Source: pyOutput,
		Files:  map[string]string{"impl.py": impl, "args.json": string(args)},
		Limits: sandbox.Limits{Wall: time.Duration(secs+5) * time.Second}})
	if err != nil {
		return "", fmt.Errorf("reflexion_code: %s: %w", site, err)
	}
	var out struct {
		Output string `json:"reflexion_code_output"`
	}
	if json.Unmarshal([]byte(lastLine(res.Stdout)), &out) != nil {
		if res.Status == sandbox.Timeout || res.Status == sandbox.CPU {
			return "TIMEOUT", nil
		}
		return "", nil // the program ended before reporting (it exited on its own)
	}
	return out.Output, nil
}

// pyParseTests prints, for each candidate test line, whether it parses.
const pyParseTests = `import ast, json
cands = json.load(open("cands.json"))
ok = []
for c in cands:
    try:
        ast.parse(c)
        ok.append(True)
    except Exception:
        ok.append(False)
print()
print(json.dumps(ok))
`

// pyTidy is the reference's tidying of a chat model's answer
// (fix_turbo_response) in Python: up to the first line that starts a
// function ("def name(" at column 0), each line not blank and not
// starting with four spaces is indented by four; each such def line is
// dropped; the lines after the first are kept as they are; then every
// run of three backticks is removed (fix_markdown, unfence).
const pyTidy = `import re

def unfence(text):
    return re.sub("` + "`{3}" + `", "", text)

def tidy(text):
    head, tail, seen = [], [], False
    for line in text.split("\n"):
        if re.match(r"def\s+\w+\s*\(", line):
            seen = True
        elif seen:
            tail.append(line)
        elif line.strip() and not line.startswith("    "):
            head.append("    " + line)
        else:
            head.append(line)
    return unfence("\n".join(head + tail))
`

// pyTidyFirst is fixFirst's program: the tidied answer as JSON, alone on
// the last line.
const pyTidyFirst = pyTidy + `
import json
with open("body.json") as f:
    answer = json.load(f)
print()
print(json.dumps(tidy(answer)))
`

// pyFixIndent is fixIndent's program. It writes the tidied body and the
// two fixed bodies before any of the answer runs, then a line naming each
// state as it starts and the decision, each marked with the line standard
// input gave, on a duplicate of standard output; the answer's own output
// (file descriptors 1 and 2) goes to /dev/null. The answer runs as the
// reference ran it: exec of the stub and its call with the generator
// module's globals (here a fresh dict holding what that module imported:
// ast, re and its typing names, shared by both states) and the fixing
// function's locals (the body, the state, the code, the tidied answer),
// each state's body unfenced first, state 1 inside state 0's handler (a
// bare raise there re-raises state 0's error). A BaseException other
// than an Exception (SystemExit) is reported by name, as is the
// IndexError of the first-line fix on an answer without lines: both
// ended the reference's run.
const pyFixIndent = pyTidy + `
import ast, builtins, json, os, sys
from typing import List, Optional, Union

def _main():
    mark = sys.stdin.readline().strip()
    with open("body.json") as f:
        answer = json.load(f)
    out = os.fdopen(os.dup(1), "w", buffering=1)
    leave = os._exit

    body = tidy(answer)
    lines = body.splitlines()
    first = None  # str.splitlines()[0] of a body without lines raises IndexError
    if body.startswith("    "):
        first = body
    elif lines:
        first = "    " + lines[0] + "\n" + "\n".join(lines[1:])
    every = "\n".join(["    " + l for l in lines])
    out.write(mark + " candidates " + json.dumps([unfence(body), None if first is None else unfence(first), unfence(every)]) + "\n")

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    g = {"__name__": "generators.py_generate", "__builtins__": builtins,
         "List": List, "Optional": Optional, "Union": Union, "ast": ast, "re": re}

    def attempt(f_body, state):
        f_body = unfence(f_body)
        out.write(mark + " at " + str(state) + "\n")
        code = "def func():\n" + f_body + "\nfunc()"
        try:
            exec(code, g, {"f_body": f_body, "cur_state": state, "code": code, "func_body": body})
            return state
        except SyntaxError:  # IndentationError and TabError are SyntaxErrors
            if state == 1:
                return 2
            if first is None:
                raise IndexError()
            return attempt(first, 1)
        except Exception:
            return state

    try:
        out.write(mark + " state " + str(attempt(body, 0)) + "\n")
    except BaseException as e:
        out.write(mark + " raised " + type(e).__name__ + "\n")
    leave(0)

_main()
`

// pyOutput runs the implementation and evaluates the test's call, its
// result (or "TIMEOUT", or the exception's message) as the last line.
const pyOutput = `import ast, json, signal, sys
args = json.load(open("args.json"))
src = open("impl.py").read()

def report(s):
    sys.stdout.write("\n" + json.dumps({"reflexion_code_output": s}) + "\n")
    sys.stdout.flush()

def on_alarm(signum, frame):
    raise TimeoutError()

try:
    g = {"__name__": "__main__"}
    exec(src, g)
    test = ast.parse(args["test"]).body[0].test
    if args["mode"] == "left":
        node = test.left
    else:
        node = getattr(test, "left", test)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(args["timeout"])
    value = eval(compile(ast.Expression(node), "<test>", "eval"), g)
    signal.alarm(0)
    report(str(value))
except TimeoutError:
    report("TIMEOUT")
except Exception as e:
    report(str(e))
`
