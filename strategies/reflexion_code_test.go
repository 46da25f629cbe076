package strategies

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	simcode "github.com/reasonbench/reasonbench/simulator/code"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// addTask is a one-problem programming task for the protocol's tests: its
// hidden tests run once per Score in the sandbox, and are counted.
type addTask struct {
	exec   tasks.Executor
	mu     sync.Mutex
	scored []string
}

const addPrompt = "def add(a: int, b: int) -> int:\n    \"\"\"Return a plus b.\"\"\"\n"

func (t *addTask) Name() string { return "mbpp" }
func (t *addTask) Instances() ([]tasks.Instance, error) {
	return []tasks.Instance{{Key: "add", Input: addPrompt}}, nil
}
func (t *addTask) Problem(tasks.Instance) tasks.CodeProblem {
	return tasks.CodeProblem{ID: "add", Prompt: addPrompt, EntryPoint: "add", Language: "python"}
}
func (t *addTask) Score(_ tasks.Instance, out string) tasks.Score {
	t.mu.Lock()
	t.scored = append(t.scored, out)
	t.mu.Unlock()
	// The last line proves the asserts ran: an early sys.exit(0) does not pass.
	res, err := t.exec.Execute(context.Background(), "hidden", sandbox.Program{Source: out + "\n\nassert add(2, 3) == 5\nassert add(-1, 1) == 0\nprint('\\nhidden-ok-7f3a')\n"})
	if err != nil {
		return tasks.Score{Reason: err.Error()}
	}
	return tasks.Score{Correct: res.Passed() && lastLine(res.Stdout) == "hidden-ok-7f3a", Answer: out, Reason: res.Reason()}
}
func (t *addTask) AnswerKey(_ tasks.Instance, o, _ string) (string, bool) { return o, true }
func (t *addTask) VoteKeys() []string                                     { return []string{"exact"} }

// siteLog records the sandbox sites executed.
type siteLog struct {
	ex    tasks.Executor
	mu    sync.Mutex
	sites []string
}

func (l *siteLog) Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	l.mu.Lock()
	l.sites = append(l.sites, site)
	l.mu.Unlock()
	return l.ex.Execute(ctx, site, p)
}

func codeExec(t *testing.T) tasks.Executor {
	t.Helper()
	return tasks.RunnerExecutor{Runner: sandboxtest.Runner(t)}
}

// codeScript answers each call by its identity and keeps the requests.
type codeScript struct {
	mu      sync.Mutex
	answers map[string]string
	reqs    []llm.Request
}

func (s *codeScript) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	a, ok := s.answers[req.Call]
	if !ok {
		return llm.Response{}, fmt.Errorf("unexpected call %s", req.Call)
	}
	return llm.Response{Choices: []llm.Choice{{Content: a}}}, nil
}

func (s *codeScript) calls() []string {
	var out []string
	for _, r := range s.reqs {
		out = append(out, r.Call+" "+r.Purpose)
	}
	return out
}

type codeOutcome struct {
	res   Result
	err   error
	model *codeScript
	task  *addTask
	sites []string
}

func runCode(t *testing.T, params map[string]any, answers map[string]string, cp Checkpointer) codeOutcome {
	t.Helper()
	ex := &siteLog{ex: codeExec(t)}
	task := &addTask{exec: ex}
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	model := &codeScript{answers: answers}
	s := newStrategy(t, "reflexion_code", params)
	insts, _ := task.Instances()
	res, err := s.Solve(context.Background(), Env{Sampler: model, Task: task, Prompts: lib, Seed: 1, Exec: ex, Checkpoint: cp}, insts[0])
	return codeOutcome{res: res, err: err, model: model, task: task, sites: ex.sites}
}

// The b448a9b protocol on one problem: the tests kept are the assert
// lines that parse, at most 5; a failing first body gets the reference's
// feedback, a reflection and an improved body, which passes; the hidden
// tests run once, on it.
func TestReflexionCodeProtocol(t *testing.T) {
	testsReply := "Here are tests:\nassert add(1, 1) == 2\nassert add(1, 1) == (\nassert add(0, 0) == 0\n" +
		"   assert add(2, 2) == 4   \nassert add(5, 5) == 10\nassert add(3, 4) == 7\nassert add(9, 1) == 10\nprint('done')"
	o := runCode(t, map[string]any{"max_iters": 3}, map[string]string{
		"i0/tests":   testsReply,
		"i0/impl":    "return a * b", // first line unindented: the fix indents it
		"i1/reflect": "It multiplies instead of adding.",
		"i1/impl":    "    return a + b",
	}, nil)
	if o.err != nil {
		t.Fatal(o.err)
	}
	d := o.res.Detail.(CodeDetail)
	if len(d.Tests) != 5 {
		t.Fatalf("kept %d tests, want 5 of the 6 that parse: %q", len(d.Tests), d.Tests)
	}
	for _, tt := range d.Tests {
		if strings.Contains(tt, "(\n") || strings.HasPrefix(tt, " ") || !strings.HasPrefix(tt, "assert") {
			t.Errorf("kept %q", tt)
		}
	}
	if got, want := o.model.calls(), []string{"i0/tests tests", "i0/impl implementation", "i1/reflect reflection", "i1/impl implementation"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if len(d.Iterations) != 2 || d.Iterations[0].Impl != addPrompt+"    return a * b" || // the reference's tidying indents it
		d.Iterations[1].Impl != addPrompt+"    return a + b" {
		t.Fatalf("iterations %q %q", d.Iterations[0].Impl, d.Iterations[len(d.Iterations)-1].Impl)
	}
	// The feedback is the reference's: passed tests, then failed ones with
	// the value the call returned.
	fb := d.Iterations[0].Feedback
	var want strings.Builder
	want.WriteString("Tested passed:")
	for _, tt := range d.Tests {
		if tt == "assert add(0, 0) == 0" || tt == "assert add(2, 2) == 4" {
			want.WriteString("\n" + tt)
		}
	}
	want.WriteString("\n\nTests failed:")
	for _, tt := range d.Tests {
		if tt != "assert add(0, 0) == 0" && tt != "assert add(2, 2) == 4" {
			var a, b int
			fmt.Sscanf(tt, "assert add(%d, %d)", &a, &b)
			want.WriteString(fmt.Sprintf("\n%s # output: %d", tt, a*b))
		}
	}
	if fb != want.String() {
		t.Errorf("feedback\n%s\nwant\n%s", fb, want.String())
	}
	// The reflection and the improved implementation see it, in the
	// reference's shapes.
	refl := o.model.reqs[2].Messages
	if len(refl) != 2 || refl[1].Content != d.Iterations[0].Impl+"\n\n"+fb+"\n\nExplanation:" {
		t.Errorf("reflection prompt %q", refl)
	}
	impl := o.model.reqs[3].Messages[1].Content
	if impl != "previous implementation:\n"+d.Iterations[0].Impl+"\n\nunit tests:\n"+fb+"\n\nhint:\nIt multiplies instead of adding.\n\n# improved implementation\n"+addPrompt {
		t.Errorf("improved implementation prompt %q", impl)
	}
	if !d.Iterations[1].Passed || !o.res.Score.Correct || len(o.task.scored) != 1 || o.task.scored[0] != d.Iterations[1].Impl {
		t.Errorf("pass@1: passed %v, correct %v, hidden tests ran on %q", d.Iterations[1].Passed, o.res.Score.Correct, o.task.scored)
	}
	if d.Evaluated != 1 || o.res.Output != d.Iterations[1].Impl {
		t.Errorf("evaluated %d, output %q", d.Evaluated, o.res.Output)
	}
	// Every program ran at its own site.
	seen := map[string]bool{}
	for _, s := range o.sites {
		if seen[s] {
			t.Errorf("site %s executed twice", s)
		}
		seen[s] = true
	}
	outputs := 0
	for s := range seen {
		if strings.HasPrefix(s, "i0/internal/") && strings.HasSuffix(s, "/output") {
			outputs++
		}
	}
	if outputs != 3 {
		t.Errorf("%d output fetches for the 3 failed tests (sites %v)", outputs, o.sites)
	}
	for _, s := range []string{"i0/tests/parse", "i0/indent", "i0/internal/0", "i1/indent", "i1/internal/4", "hidden"} {
		if !seen[s] {
			t.Errorf("no execution at %s (sites %v)", s, o.sites)
		}
	}
}

// The hidden tests run once, on the last implementation when none passes
// the internal tests; with max_iters=1 the reference runs them on none.
func TestReflexionCodePassAtOne(t *testing.T) {
	answers := map[string]string{
		"i0/tests": "assert add(1, 2) == 3", "i0/impl": "    return a - b",
		"i1/reflect": "Subtracts.", "i1/impl": "    return a + b + 0 * 1 if a > 100 else a - b",
		"i2/reflect": "Still subtracts.", "i2/impl": "    return a + b",
	}
	o := runCode(t, map[string]any{"max_iters": 2}, answers, nil)
	if o.err != nil {
		t.Fatal(o.err)
	}
	d := o.res.Detail.(CodeDetail)
	if len(d.Iterations) != 2 || d.Iterations[1].Passed || len(o.task.scored) != 1 || o.task.scored[0] != d.Iterations[1].Impl || o.res.Score.Correct {
		t.Errorf("max_iters=2: %d iterations, scored %q, correct %v", len(d.Iterations), o.task.scored, o.res.Score.Correct)
	}
	o = runCode(t, map[string]any{"max_iters": 1}, answers, nil)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(o.task.scored) != 0 || o.res.Score.Correct || o.res.Detail.(CodeDetail).Evaluated != -1 {
		t.Errorf("max_iters=1: hidden tests ran on %q", o.task.scored)
	}
	// strategy=simple: one implementation, scored, no tests.
	o = runCode(t, map[string]any{"strategy": "simple"}, map[string]string{"i0/impl": "    return a + b"}, nil)
	if o.err != nil || !o.res.Score.Correct || len(o.model.reqs) != 1 || len(o.task.scored) != 1 {
		t.Errorf("simple: err %v, correct %v, %d calls, %d scores", o.err, o.res.Score.Correct, len(o.model.reqs), len(o.task.scored))
	}
}

// Hostile answers are recorded failures: no tests, an empty body, a body
// that never returns (the per-test timeout), one that exits the
// interpreter, and enormous output.
func TestReflexionCodeHostileAnswers(t *testing.T) {
	o := runCode(t, map[string]any{"max_iters": 4, "test_timeout": 0.5, "indent_timeout": 1}, map[string]string{
		"i0/tests":   "assert add(1, 2) == 3\nassert add(2, 2) == 4",
		"i0/impl":    "",
		"i1/reflect": "",
		"i1/impl":    "    while True:\n        pass",
		"i2/reflect": strings.Repeat("x", 1<<20),
		"i2/impl":    "    import os\n    print('y' * 5000000)\n    os._exit(0)",
		"i3/reflect": "\x00",
		"i3/impl":    "    raise SystemExit(0)",
	}, nil)
	if o.err != nil {
		t.Fatal(o.err)
	}
	d := o.res.Detail.(CodeDetail)
	if len(d.Iterations) != 4 || o.res.Score.Correct {
		t.Fatalf("%d iterations, correct %v", len(d.Iterations), o.res.Score.Correct)
	}
	if !strings.Contains(d.Iterations[1].Feedback, "assert add(1, 2) == 3 # output: TIMEOUT") {
		t.Errorf("looping body's feedback %q", d.Iterations[1].Feedback)
	}
	for i, it := range d.Iterations {
		if it.Passed {
			t.Errorf("iteration %d passed: %q", i, it.Feedback)
		}
	}
	// A reply with no test keeps none: every implementation passes vacuously
	// and the first is scored, as in the reference.
	o = runCode(t, nil, map[string]string{"i0/tests": "I cannot write tests.", "i0/impl": "    return a + b"}, nil)
	if o.err != nil || len(o.res.Detail.(CodeDetail).Tests) != 0 || !o.res.Score.Correct {
		t.Errorf("no tests: err %v, detail %+v", o.err, o.res.Detail)
	}
}

// A run killed after a checkpoint resumes where it stopped: the calls
// before it are not asked again and the result is the uninterrupted one.
func TestReflexionCodeResumes(t *testing.T) {
	answers := map[string]string{
		"i0/tests": "assert add(1, 2) == 3", "i0/impl": "    return a - b",
		"i1/reflect": "Subtracts.", "i1/impl": "    return a * b",
		"i2/reflect": "Multiplies.", "i2/impl": "    return a + b",
	}
	whole := runCode(t, nil, answers, &memCheckpoint{})
	if whole.err != nil {
		t.Fatal(whole.err)
	}
	cp := &memCheckpoint{fail: 3} // killed at the third save (after i2)
	killed := runCode(t, nil, answers, cp)
	if !errors.Is(killed.err, context.Canceled) {
		t.Fatalf("killed run: %v", killed.err)
	}
	resumed := runCode(t, nil, answers, cp)
	if resumed.err != nil {
		t.Fatal(resumed.err)
	}
	if got := resumed.model.calls(); !reflect.DeepEqual(got, []string{"i2/reflect reflection", "i2/impl implementation"}) {
		t.Errorf("resumed calls %v", got)
	}
	if !reflect.DeepEqual(whole.res.Detail, resumed.res.Detail) || !reflect.DeepEqual(whole.res.Score, resumed.res.Score) {
		t.Errorf("resumed %+v\nwhole %+v", resumed.res.Detail, whole.res.Detail)
	}
}

// version=current: code-block instructions, the six-message improvement
// chat, whole functions parsed out of code blocks, one internal test.
func TestReflexionCodeCurrentVersion(t *testing.T) {
	o := runCode(t, map[string]any{"version": "current"}, map[string]string{
		"i0/tests":   "assert add(1, 2) == 3\nassert add(2, 2) == 4",
		"i0/impl":    "```python\ndef add(a: int, b: int) -> int:\n    return a - b\n```",
		"i1/reflect": "Subtracts.",
		"i1/impl":    "Fixed:\n```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```\n",
	}, nil)
	if o.err != nil {
		t.Fatal(o.err)
	}
	d := o.res.Detail.(CodeDetail)
	if len(d.Tests) != 1 || len(d.Iterations) != 2 || d.Iterations[1].Impl != "def add(a: int, b: int) -> int:\n    return a + b" || !o.res.Score.Correct {
		t.Fatalf("detail %+v, correct %v", d, o.res.Score.Correct)
	}
	msgs := o.model.reqs[3].Messages
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if !reflect.DeepEqual(roles, []string{"system", "user", "assistant", "user", "assistant", "user"}) ||
		msgs[2].Content != AddCodeBlock(d.Iterations[0].Impl) || msgs[4].Content != "Subtracts." ||
		msgs[5].Content != "[improved impl]:\n"+addPrompt || !strings.Contains(msgs[0].Content, "```python") {
		t.Errorf("improvement chat %q", msgs)
	}
}

func TestParseCodeBlock(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"```python\ndef f():\n    return 1\n```", "def f():\n    return 1"},
		{"text\n```\ndef f():\n    return 2\n```\nmore ```python\nx\n```", "x"},
		{"text\n```\ndef f():\n    return 2\n```", "def f():\n    return 2"},
		{"Sure:\ndef f():\n    return 3", "def f():\n    return 3"},
		{"no code", "no code"},
		{"", ""},
	} {
		if got := ParseCodeBlock(c.in); got != c.want {
			t.Errorf("ParseCodeBlock(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// SampleTests keeps everything up to n, else n tests in their order, the
// same ones for the same seed and problem.
func TestSampleTests(t *testing.T) {
	tests := []string{"a", "b", "c", "d", "e", "f", "g"}
	if got := SampleTests(tests[:3], 5, 1, "p"); !reflect.DeepEqual(got, tests[:3]) {
		t.Errorf("under n: %v", got)
	}
	got := SampleTests(tests, 5, 1, "p")
	if len(got) != 5 || !reflect.DeepEqual(got, SampleTests(tests, 5, 1, "p")) {
		t.Fatalf("sample %v", got)
	}
	pos := -1
	for _, g := range got {
		i := strings.Index("abcdefg", g)
		if i <= pos {
			t.Errorf("sample %v out of order", got)
		}
		pos = i
	}
	differs := false
	for seed := int64(2); seed < 20; seed++ {
		differs = differs || !reflect.DeepEqual(SampleTests(tests, 5, seed, "p"), got)
	}
	if !differs {
		t.Error("every seed draws the same tests")
	}
}

// On the simulated coder, a run over the OpenAI-compatible server on
// loopback gives what it gives in process (same calls, same detail), and
// at temperature 0.7 a rerun is identical: the calls' identities, not
// their timing, decide the draws.
func TestReflexionCodeSimulatorOverHTTP(t *testing.T) {
	model, err := sim.New(sim.Params{Skill: 0.8, Slip: 0.3}, simcode.ReflexionResponder{})
	if err != nil {
		t.Fatal(err)
	}
	identify := func(s llm.Sampler) llm.Sampler {
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			req.Seed = llm.CallSeed(req.Seed, req.Call)
			return s.Sample(ctx, req)
		})
	}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{}))
	defer srv.Close()
	client, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "sim", APIKey: "x"})
	if err != nil {
		t.Fatal(err)
	}
	prompt := "def second(xs: list) -> int:\n    \"\"\" The second element.\n    >>> second([1, 2])\n    2\n    >>> second([5, 6, 7])\n    6\n    \"\"\"\n"
	task := &oneProblem{addTask: addTask{exec: codeExec(t)}, prompt: prompt, entry: "second"}
	lib, _ := prompts.Bundled()
	for _, version := range []string{"b448a9b", "current"} {
		s := newStrategy(t, "reflexion_code", map[string]any{"version": version, "temperature": 0.7})
		run := func(sampler llm.Sampler) Result {
			insts, _ := task.Instances()
			res, err := s.Solve(context.Background(), Env{Sampler: identify(sampler), Task: task, Prompts: lib, Seed: 3, Exec: task.exec}, insts[0])
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		local, remote, again := run(model), run(client), run(model)
		if !reflect.DeepEqual(local.Detail, remote.Detail) || !reflect.DeepEqual(local.Detail, again.Detail) {
			t.Errorf("%s: in process %+v\nover HTTP %+v", version, local.Detail, remote.Detail)
		}
		if d := local.Detail.(CodeDetail); len(d.Tests) == 0 || len(d.Iterations) == 0 {
			t.Errorf("%s: the simulated coder wrote no tests or code: %+v", version, d)
		}
	}
}

// oneProblem is addTask with another prompt (its hidden tests are the
// prompt's examples' assert form, never shown to the strategy).
type oneProblem struct {
	addTask
	prompt, entry string
}

func (t *oneProblem) Instances() ([]tasks.Instance, error) {
	return []tasks.Instance{{Key: t.entry, Input: t.prompt}}, nil
}
func (t *oneProblem) Problem(tasks.Instance) tasks.CodeProblem {
	return tasks.CodeProblem{ID: t.entry, Prompt: t.prompt, EntryPoint: t.entry, Language: "python"}
}
func (t *oneProblem) Score(_ tasks.Instance, out string) tasks.Score {
	res, err := t.exec.Execute(context.Background(), "hidden", sandbox.Program{Source: out + "\n\nassert second([1, 2]) == 2\nassert second([3, 4, 5]) == 4\nprint('\\nhidden-ok-7f3a')\n"})
	if err != nil {
		return tasks.Score{Reason: err.Error()}
	}
	return tasks.Score{Correct: res.Passed() && lastLine(res.Stdout) == "hidden-ok-7f3a", Answer: out}
}

// FuzzParseCodeBlock: any answer reads as a part of itself, never a panic.
func FuzzParseCodeBlock(f *testing.F) {
	for _, s := range []string{"```python\nx\n```", "```\ny\n```", "def f():\n    pass", "", "```python\n```", "``````"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := ParseCodeBlock(s); !strings.Contains(s, got) {
			t.Fatalf("%q read as %q, not a part of it", s, got)
		}
	})
}

// FuzzSampleTests: the kept tests are min(n, len) of them, in their order,
// the same for the same seed and problem.
func FuzzSampleTests(f *testing.F) {
	f.Add(7, 5, int64(1), "p")
	f.Add(3, 5, int64(2), "")
	f.Fuzz(func(t *testing.T, m, n int, seed int64, key string) {
		if m < 0 || m > 200 || n < 0 || n > 200 {
			return
		}
		tests := make([]string, m)
		for i := range tests {
			tests[i] = fmt.Sprint(i)
		}
		got := SampleTests(tests, n, seed, key)
		if len(got) != min(n, m) || !reflect.DeepEqual(got, SampleTests(tests, n, seed, key)) {
			t.Fatalf("%d of %d: %v", n, m, got)
		}
		last := -1
		for _, g := range got {
			var i int
			fmt.Sscan(g, &i)
			if i <= last {
				t.Fatalf("out of order: %v", got)
			}
			last = i
		}
	})
}
