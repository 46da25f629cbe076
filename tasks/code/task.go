package code

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// Scoring rules.
const (
	// RuleIsolated runs the hidden test in a judge process and each
	// output's program in a sandbox of its own (CandidateModule: the
	// program part of openai/human-eval's assembly), connected by plain
	// data only (py/judge.py, py/candidate.py, py/wire.py).
	RuleIsolated = "isolated"
	// RuleReference runs as the Reflexion executor does (Reference); the
	// program can forge its verdict there, as it could in the reference.
	RuleReference = "reference"
)

// Limits of one hidden-test run: the reference gives each problem 10 s.
var Limits = sandbox.Limits{Wall: 10 * time.Second, CPU: 10 * time.Second}

// Task is a programming task over problems with hidden tests.
type Task struct {
	name     string
	problems []Problem
	byID     map[string]int
	rule     string
	data     tasks.Dataset
	folders  []string
	limits   sandbox.Limits // of one hidden-test run: Limits

	// Bound to one item's executor (WithExecutor); nil: Score runs nothing.
	ex    tasks.Executor
	ctx   context.Context
	state *boundState
}

// boundState is what one item's copy remembers: each program's score per
// site (a strategy that scores one output twice runs it once), and the
// first execution the sandbox could not run.
type boundState struct {
	mu     sync.Mutex
	memo   map[string]tasks.Score
	failed error
}

func newTask(name string, ps []Problem, data tasks.Dataset, folders []string) *Task {
	t := &Task{name: name, problems: ps, byID: map[string]int{}, rule: RuleIsolated, data: data, folders: folders, limits: Limits}
	for i, p := range ps {
		t.byID[p.ID] = i
	}
	return t
}

// Name is the task's name.
func (t *Task) Name() string { return t.name }

// Instances are the problems: the prompt is the input, the problem's id
// the key.
func (t *Task) Instances() ([]tasks.Instance, error) {
	out := make([]tasks.Instance, len(t.problems))
	for i, p := range t.problems {
		out[i] = tasks.Instance{Index: p.Index, Key: p.ID, Input: p.Prompt, Data: p}
	}
	return out, nil
}

// Problem is what a strategy sees of an instance.
func (t *Task) Problem(inst tasks.Instance) tasks.CodeProblem {
	p := t.problem(inst)
	return tasks.CodeProblem{ID: p.ID, Prompt: p.Prompt, EntryPoint: p.EntryPoint, Language: "python"}
}

// HiddenTests is the problem's test source (tasks.TestShower), as the
// dataset gives it.
func (t *Task) HiddenTests(inst tasks.Instance) string { return t.problem(inst).HiddenTest }

func (t *Task) problem(inst tasks.Instance) Problem {
	if p, ok := inst.Data.(Problem); ok {
		return p
	}
	if i, ok := t.byID[inst.Key]; ok {
		return t.problems[i]
	}
	return Problem{ID: inst.Key, Prompt: inst.Input}
}

// Dataset names the embedded data (or the file) the task scores.
func (t *Task) Dataset() tasks.Dataset { return t.data }

// TemplateFolders: the task's own templates (file code tasks use
// HumanEval's, which ask for any function).
func (t *Task) TemplateFolders() []string { return t.folders }

// ScoringRule names the rule.
func (t *Task) ScoringRule() string {
	if t.rule == RuleReference {
		return t.name + "/reference: the Reflexion executor's: solution, test and check(entry_point) exec'd in one namespace seeded like its module's (ast, signal, List), 10 s alarm per problem; `bench score` runs a file's lines in one namespace in order; " + tasks.ForgeableMark + " the program runs in the process that writes the verdicts (for replaying logged runs, not for judging models)"
	}
	return t.name + "/isolated: the hidden test in a judge process of its own, the program (prompt + code, as openai/human-eval assembles it) in another sandbox answering the test's calls as plain data, so the program cannot forge the verdict (docs/code-verdicts.md); 10 s"
}

// Rules lists the rules, the default first.
func (t *Task) Rules() []string { return []string{RuleIsolated, RuleReference} }

// WithRule returns the task scored by the named rule.
func (t *Task) WithRule(name string) (tasks.Task, error) {
	switch name {
	case RuleIsolated, RuleReference:
		c := *t
		c.rule = name
		return &c, nil
	}
	return nil, fmt.Errorf("task %s: unknown rule %q (known: %s)", t.name, name, strings.Join(t.Rules(), ", "))
}

// WithExecutor binds a copy to one item's executor.
func (t *Task) WithExecutor(ctx context.Context, ex tasks.Executor) (tasks.Task, func() error) {
	c := *t
	c.ex, c.ctx, c.state = ex, ctx, &boundState{memo: map[string]tasks.Score{}}
	st := c.state
	return &c, func() error {
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.failed
	}
}

// Score runs the output's program against the hidden tests (site "hidden").
func (t *Task) Score(inst tasks.Instance, output string) tasks.Score {
	return t.ScoreSample(inst, output, 0)
}

// Site is where the k-th sample's hidden-test run is recorded.
func Site(k int) string {
	if k == 0 {
		return "hidden"
	}
	return "hidden/" + strconv.Itoa(k)
}

// ScoreSample scores the k-th of an item's samples (site Site(k)).
func (t *Task) ScoreSample(inst tasks.Instance, output string, k int) tasks.Score {
	p := t.problem(inst)
	code := ExtractCode(output, p.EntryPoint)
	if t.ex == nil {
		return tasks.Score{Answer: code, Reason: "no sandbox"}
	}
	site := Site(k)
	key := site + "\x00" + code
	t.state.mu.Lock()
	if s, ok := t.state.memo[key]; ok {
		t.state.mu.Unlock()
		return s
	}
	t.state.mu.Unlock()
	s, err := t.run(t.ctx, t.ex, site, p, code)
	t.state.mu.Lock()
	defer t.state.mu.Unlock()
	if err != nil {
		if t.state.failed == nil {
			t.state.failed = fmt.Errorf("%s: hidden tests of %s: %w", site, p.ID, err)
		}
		return s
	}
	t.state.memo[key] = s
	return s
}

// run scores code for p under the task's rule on ex. An error is the
// sandbox failing, not the program.
func (t *Task) run(ctx context.Context, ex tasks.Executor, site string, p Problem, code string) (tasks.Score, error) {
	if len(code) > MaxCode {
		return tasks.Score{Answer: code[:200] + "...", Reason: fmt.Sprintf("program of %d bytes (limit %d)", len(code), MaxCode)}, nil
	}
	if t.rule == RuleReference {
		v, err := runReference(ctx, ex, site, []refItem{{code: ReferenceProgram(p, code)}})
		if err != nil {
			return tasks.Score{Answer: code, Reason: "sandbox: " + err.Error()}, err
		}
		return tasks.Score{Correct: v[0].pass, Answer: code, Reason: v[0].reason}, nil
	}
	return t.runIsolated(ctx, ex, site, p, code)
}

// The isolated rule's two processes (docs/code-verdicts.md): judge.py runs
// the prompt and the hidden test and decides; candidate.py runs the
// program in a sandbox of its own and answers the judge's calls as plain
// data (wire.py).
var (
	//go:embed py/judge.py
	judgePy string
	//go:embed py/candidate.py
	candidatePy string
	//go:embed py/wire.py
	wirePy string
)

// runIsolated scores code under the isolated rule. The verdict is the
// judge's alone: it passes when the judge's process exits cleanly after
// writing its finish line, which the program cannot reach.
func (t *Task) runIsolated(ctx context.Context, ex tasks.Executor, site string, p Problem, code string) (tasks.Score, error) {
	prob, err := json.Marshal(map[string]any{"prompt": p.Prompt, "test": p.HiddenTest, "entry_point": p.EntryPoint,
		"call_check": !p.SelfChecking()})
	if err != nil {
		return tasks.Score{Answer: code, Reason: "problem: " + err.Error()}, err
	}
	module := CandidateModule(p, code)
	marker := finishMarker(string(prob) + "\x00" + module)
	peerLim := t.limits
	peerLim.Wall = t.limits.Wall + time.Second // ended with the judge anyway
	res, err := ex.Execute(ctx, site, sandbox.Program{Source: judgePy, Files: map[string]string{"problem.json": string(prob), "wire.py": wirePy},
		Stdin: marker + "\n", Limits: t.limits,
		Peer: &sandbox.Program{Source: candidatePy, Files: map[string]string{"solution.py": module, "wire.py": wirePy}, Limits: peerLim}})
	if err != nil {
		return tasks.Score{Answer: code, Reason: "sandbox: " + err.Error()}, err
	}
	finished := strings.Contains(res.Stdout, "\n"+marker+" finished\n")
	s := tasks.Score{Correct: res.Passed() && finished, Answer: code}
	switch {
	case !res.Passed():
		s.Reason = res.Reason()
		if f := failure(res.Stderr); f != "" {
			s.Reason += ": " + f
		}
	case !finished:
		s.Reason = "the hidden tests ended before they finished"
	}
	return s, nil
}

// finishMarker is the judge's end-of-tests marker: a digest of what it
// runs, so that reruns record the same execution. Only the judge's own
// standard output is read for it, which the program cannot write to.
func finishMarker(in string) string {
	sum := sha256.Sum256([]byte("reasonbench hidden tests finished\x00" + in))
	return hex.EncodeToString(sum[:16])
}

// AnswerKey votes by the code with surrounding blank space removed: two
// samples agree when they wrote the same program.
func (t *Task) AnswerKey(inst tasks.Instance, output, key string) (string, bool) {
	c := strings.TrimSpace(ExtractCode(output, t.problem(inst).EntryPoint))
	return c, c != ""
}

// VoteKeys: one key, the program.
func (t *Task) VoteKeys() []string { return []string{"code"} }

var (
	_ tasks.Coding          = (*Task)(nil)
	_ tasks.Executed        = (*Task)(nil)
	_ tasks.RuleChooser     = (*Task)(nil)
	_ tasks.RuleNamer       = (*Task)(nil)
	_ tasks.DataSource      = (*Task)(nil)
	_ tasks.TemplateFolders = (*Task)(nil)
	_ tasks.RecordScorer    = (*Task)(nil)
)
