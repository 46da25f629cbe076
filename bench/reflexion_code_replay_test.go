package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"github.com/reasonbench/reasonbench/strategies/param"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

// codeFixtureTask is a test-only programming task over MBPP rows: the
// strategy sees the prompt and entry point; Score runs the row's hidden
// test program (which calls test_check() itself) once in the sandbox.
type codeFixtureTask struct {
	rows []codeRow
	exec tasks.Executor
}

type codeRow struct {
	Name       string `json:"name"`
	Prompt     string `json:"prompt"`
	EntryPoint string `json:"entry_point"`
	Test       string `json:"test"`
}

func (t *codeFixtureTask) Name() string { return "mbpp" }

func (t *codeFixtureTask) Instances() ([]tasks.Instance, error) {
	out := make([]tasks.Instance, len(t.rows))
	for i, r := range t.rows {
		out[i] = tasks.Instance{Index: i, Key: r.Name, Input: r.Prompt, Data: r}
	}
	return out, nil
}

func (t *codeFixtureTask) Problem(inst tasks.Instance) tasks.CodeProblem {
	r := inst.Data.(codeRow)
	return tasks.CodeProblem{ID: r.Name, Prompt: r.Prompt, EntryPoint: r.EntryPoint, Language: "python"}
}

// Score runs the hidden tests as the reference's evaluate: the function,
// a blank line, the test code, with a 10 s limit.
func (t *codeFixtureTask) Score(inst tasks.Instance, output string) tasks.Score {
	r := inst.Data.(codeRow)
	// The last line proves the tests ran: an early sys.exit(0) does not pass.
	res, err := t.exec.Execute(context.Background(), "hidden", sandbox.Program{Source: output + "\n\n" + r.Test + "\nprint('\\nhidden-ok-7f3a')\n",
		Limits: sandbox.Limits{Wall: 10 * time.Second}})
	if err != nil {
		return tasks.Score{Reason: err.Error()}
	}
	ok := res.Passed() && strings.HasSuffix(strings.TrimRight(res.Stdout, "\n"), "\nhidden-ok-7f3a")
	return tasks.Score{Correct: ok, Answer: output, Reason: res.Reason()}
}

func (t *codeFixtureTask) AnswerKey(_ tasks.Instance, output, _ string) (string, bool) {
	return output, output != ""
}
func (t *codeFixtureTask) VoteKeys() []string { return []string{"exact"} }

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// loggedProblem is one problem of the logged run's trace.
type loggedProblem struct {
	Idx             int      `json:"idx"`
	Name            string   `json:"name"`
	InternalTests   []string `json:"internal_tests"`
	Implementations []string `json:"implementations"`
	Reflections     []string `json:"reflections"`
	IsSolved        bool     `json:"is_solved"`
}

// codeReplayModel answers the calls the reference made with what GPT-4
// answered, per problem (found by its prompt in the call), and records
// every call the reference did not make.
type codeReplayModel struct {
	lib      *prompts.Library
	mu       sync.Mutex
	problems map[string]*codeReplay // by prompt
}

// codeReplay is one problem's replay: its log and how far it got.
type codeReplay struct {
	prompt string
	log    loggedProblem
	next   int // position in the problem's call sequence
	errs   []string
}

// expected is the reference's call n for a problem: tests, the first
// implementation, then a reflection and an implementation per further
// implementation.
func expected(n int) (kind string, k int) {
	switch {
	case n == 0:
		return "tests", 0
	case n == 1:
		return "impl", 0
	case n%2 == 0:
		return "reflect", n / 2
	default:
		return "impl", n / 2
	}
}

func (p *codeReplay) calls() int { return 2 * len(p.log.Implementations) }

func (m *codeReplayModel) text(name string) string {
	s, _ := m.lib.Text("mbpp/" + name)
	return s
}

func (p *codeReplay) fail(format string, args ...any) (llm.Response, error) {
	msg := p.log.Name + ": " + fmt.Sprintf(format, args...)
	p.errs = append(p.errs, msg)
	return llm.Response{}, errors.New(msg)
}

func (m *codeReplayModel) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		return llm.Response{}, fmt.Errorf("want a system and a user message, got %d messages", len(req.Messages))
	}
	sys, user := req.Messages[0].Content, req.Messages[1].Content
	var p *codeReplay
	for prompt, q := range m.problems {
		if strings.Contains(user, prompt) && (p == nil || len(prompt) > len(p.prompt)) {
			p = q
		}
	}
	if p == nil {
		return llm.Response{}, errors.New("a call that names no problem of the log")
	}
	if p.next >= p.calls() {
		return p.fail("call %d: the reference made only %d calls", p.next, p.calls())
	}
	kind, k := expected(p.next)
	impls, refl := p.log.Implementations, p.log.Reflections
	var answer string
	switch kind {
	case "tests":
		if sys != m.text("reflexion_code_tests_system") || !strings.HasSuffix(user, "\n\nfunc signature:\n"+p.prompt+"\nunit tests:") {
			return p.fail("call %d: want the test-writing prompt", p.next)
		}
		answer = strings.Join(p.log.InternalTests, "\n")
	case "impl":
		if k == 0 && (sys != m.text("reflexion_code_simple_system") || user != p.prompt) {
			return p.fail("call %d: want the first implementation's prompt", p.next)
		}
		if k > 0 && (sys != m.text("reflexion_code_reflexion_system") ||
			!strings.HasPrefix(user, "previous implementation:\n"+impls[k-1]+"\n\nunit tests:\nTested passed:") ||
			!strings.HasSuffix(user, "\n\nhint:\n"+refl[k-1]+"\n\n# improved implementation\n"+p.prompt)) {
			return p.fail("call %d: want improved implementation %d's prompt", p.next, k)
		}
		answer = strings.TrimPrefix(impls[k], p.prompt)
	case "reflect":
		if sys != m.text("reflexion_code_reflect_system") || !strings.HasPrefix(user, impls[k-1]+"\n\nTested passed:") ||
			!strings.HasSuffix(user, "\n\nExplanation:") {
			return p.fail("call %d: want reflection %d's prompt", p.next, k)
		}
		answer = refl[k-1]
	}
	p.next++
	return llm.Response{Choices: []llm.Choice{{Content: answer, FinishReason: "stop"}}}, nil
}

// TestReflexionCodeReplaysTheLoggedMBPPRun feeds the logged GPT-4 MBPP
// run's answers (tests, implementations, reflections of its first 40
// problems) through a loopback OpenAI endpoint to --preset
// reflexion-mbpp/reflexion, one problem after another, and checks that it
// asks exactly the calls the reference asked and makes its decisions: the
// same internal tests, the same number of implementations, the same final
// implementation byte for byte, the same verdict (hidden tests in the
// sandbox).
func TestReflexionCodeReplaysTheLoggedMBPPRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 500 sandboxed programs")
	}
	ctx := context.Background()
	runner := sandbox.Runner(sandboxtest.Runner(t))
	logged := readJSONL[loggedProblem](t, "testdata/reflexion_code/trace.jsonl")
	rows := readJSONL[codeRow](t, "testdata/reflexion_code/mbpp40.jsonl")
	if len(logged) != 40 || len(rows) != 40 {
		t.Fatalf("fixtures: %d logged problems, %d rows", len(logged), len(rows))
	}
	ex := tasks.RunnerExecutor{Runner: runner}
	task := &codeFixtureTask{rows: rows, exec: ex}
	insts, _ := task.Instances()

	cfg, err := ApplyPreset(DefaultConfig(), "reflexion-mbpp/reflexion")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := strategies.Lookup(cfg.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := param.Resolve(spec.Params, cfg.Params)
	if err != nil {
		t.Fatal(err)
	}
	strat, err := spec.New(vals)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := prompts.Bundled()
	if os.Getenv("REFLEXION_PROMPTS") != "" { // a folder from bench prompts import --from reflexion
		lib, err = prompts.WithOverrides(os.Getenv("REFLEXION_PROMPTS"))
	}
	if err != nil {
		t.Fatal(err)
	}
	model := &codeReplayModel{lib: lib}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{}))
	defer srv.Close()
	client, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "gpt-4", APIKey: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	model.problems = map[string]*codeReplay{}
	for i, lg := range logged {
		if rows[i].Name != lg.Name {
			t.Fatalf("row %d is %s, the log's %s", i, rows[i].Name, lg.Name)
		}
		model.problems[rows[i].Prompt] = &codeReplay{prompt: rows[i].Prompt, log: lg}
	}
	pick := replaySubset(logged, os.Getenv("BENCH_FULL_REFLEXION") == "1")
	// Problems are independent (each program runs in its own sandbox), so
	// four run at once; each problem's calls come one after another. In
	// the preset's shared namespace a problem's tests see the problems
	// before it: then they run one at a time in the log's order (which is
	// the run's: the fixtures are its first 40 problems).
	results := make([]strategies.Result, len(logged))
	errs := make([]error, len(logged))
	workers := 4
	if o, ok := strat.(strategies.Ordered); ok && o.InOrder() != "" {
		workers = 1
		slices.Sort(pick)
		if err := o.Restore(task, lib, nil); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				env := strategies.Env{Sampler: client, Task: task, Prompts: lib, Seed: cfg.Seed, Exec: ex}
				results[i], errs[i] = strat.Solve(ctx, env, insts[i])
			}
		}()
	}
	for _, i := range pick {
		work <- i
	}
	close(work)
	wg.Wait()
	solved, agree := 0, 0
	for _, i := range pick {
		lg := logged[i]
		p := model.problems[rows[i].Prompt]
		for _, e := range p.errs {
			t.Error(e)
		}
		res, err := results[i], errs[i]
		if err != nil {
			t.Errorf("%s: %v", lg.Name, err)
			continue
		}
		if p.next != p.calls() {
			t.Errorf("%s: asked %d calls, the reference asked %d", lg.Name, p.next, p.calls())
		}
		d := res.Detail.(strategies.CodeDetail)
		ok := true
		if strings.Join(d.Tests, "\n") != strings.Join(lg.InternalTests, "\n") {
			t.Errorf("%s: internal tests %q, logged %q", lg.Name, d.Tests, lg.InternalTests)
			ok = false
		}
		if len(d.Iterations) != len(lg.Implementations) {
			t.Errorf("%s: %d implementations, logged %d", lg.Name, len(d.Iterations), len(lg.Implementations))
			ok = false
		}
		for k, it := range d.Iterations {
			if k < len(lg.Implementations) && it.Impl != lg.Implementations[k] {
				t.Errorf("%s: implementation %d differs from the logged one", lg.Name, k)
				ok = false
			}
		}
		if res.Output != lg.Implementations[len(lg.Implementations)-1] {
			t.Errorf("%s: final implementation differs:\n%s\nlogged:\n%s", lg.Name, res.Output, lg.Implementations[len(lg.Implementations)-1])
			ok = false
		}
		if res.Score.Correct != lg.IsSolved {
			t.Errorf("%s: verdict %v (%s), logged %v", lg.Name, res.Score.Correct, res.Score.Reason, lg.IsSolved)
			ok = false
		}
		if res.Score.Correct {
			solved++
		}
		if ok {
			agree++
		}
	}
	t.Logf("%d/%d problems make the logged decisions; %d solved (logged: %d)", agree, len(pick), solved, countSolvedAt(logged, pick))
}

// replaySubset is every problem under BENCH_FULL_REFLEXION=1 (about 500
// sandboxed programs, minutes), else a few of each kind: solved by the
// first implementation, solved after reflections, never solved, so that
// each path of the loop is still replayed in every test run.
func replaySubset(ps []loggedProblem, full bool) []int {
	if full {
		out := make([]int, len(ps))
		for i := range ps {
			out[i] = i
		}
		return out
	}
	var first, reflected, unsolved []int
	for i, p := range ps {
		switch {
		case !p.IsSolved:
			unsolved = append(unsolved, i)
		case len(p.Implementations) == 1:
			first = append(first, i)
		default:
			reflected = append(reflected, i)
		}
	}
	var out []int
	for _, group := range [][]int{first, reflected, unsolved} {
		out = append(out, group[:min(2, len(group))]...)
	}
	return out
}

func countSolvedAt(ps []loggedProblem, pick []int) int {
	n := 0
	for _, i := range pick {
		if ps[i].IsSolved {
			n++
		}
	}
	return n
}
