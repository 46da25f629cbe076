package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// pal is program-aided reasoning (Gao et al., 2023, PAL): the model writes a
// Python function solution() whose return value, run in the sandbox, is the
// answer. With k > 1 the k programs are one request with n=k and the
// executed answers are voted on (PAL with self-consistency, as the paper's
// majority@k); a program that fails to run gives no vote.
//
// On Game of 24 solution() returns the expression as a string (the task's
// scorer checks it uses the four numbers and makes 24); on GSM8K it returns
// the number.
type pal struct {
	k           int
	temperature *float64
	maxTokens   int
	voteKey     string
	limits      sandbox.Limits
}

var palParams = []param.Param{
	{Name: "k", Kind: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(1000), Show: true, Doc: "programs sampled per instance; k > 1 votes on their executed answers (PAL-SC)"},
	temperatureParam("temperature", 0.0, "sampling temperature of the k programs (PAL used greedy decoding for k=1, 0.7 for majority@40)"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit (0: server default)"},
	{Name: "vote_key", Kind: param.String, Default: "", Doc: "what is voted on, as cotsc's vote_key (empty: the task's first)"},
	timeoutParam,
}

// timeoutParam bounds one program's run: its wall and CPU time. The PAL and
// Self-Refine references give solution() one second; the default leaves
// room for a sandbox's start on a loaded machine.
var timeoutParam = param.Param{Name: "timeout", Kind: param.Float, Default: 5.0, Min: param.Bound(0.1), Max: param.Bound(600),
	Doc: "seconds of wall and CPU time a program may run (the sandbox's other limits apply as they are)"}

// lateParam marks p Late (Param.Late): a parameter added to a strategy
// that has recorded runs.
func lateParam(p param.Param) param.Param {
	p.Late = true
	return p
}

// limitsOf are the sandbox limits of a timeout in seconds.
func limitsOf(seconds float64) sandbox.Limits {
	d := time.Duration(seconds * float64(time.Second))
	return sandbox.Limits{Wall: d, CPU: d}
}

func newPAL(v param.Values) (Strategy, error) {
	return &pal{k: v.Int("k"), temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"), voteKey: v.String("vote_key"),
		limits: limitsOf(v.Float("timeout"))}, nil
}

// NeedsSandbox: every sample is a program to run.
func (s *pal) NeedsSandbox() string { return "it runs the model's programs to get its answers" }

// CheckTask rejects a vote key the task does not know.
func (s *pal) CheckTask(t tasks.Task) error {
	if s.voteKey != "" && !slices.Contains(t.VoteKeys(), s.voteKey) {
		return fmt.Errorf("parameter vote_key=%s: task %s knows %v", s.voteKey, t.Name(), t.VoteKeys())
	}
	return nil
}

// PALSample is one program and what running it gave, as stored in an
// item's detail. Answer and Correct are the task's verdict on the executed
// answer ("Answer: <value>"); a program that did not run is wrong.
type PALSample struct {
	Program string `json:"program"`
	Status  string `json:"status"`          // the sandbox's status, or "no_program"/"no_result"
	Value   string `json:"value,omitempty"` // str() of solution()'s return value
	Type    string `json:"type,omitempty"`  // its Python type
	Error   string `json:"error,omitempty"` // why it gave no answer: the error's last line or the limit
	Answer  string `json:"answer"`
	Correct bool   `json:"correct"`
	Reason  string `json:"reason,omitempty"`
}

// palDetail has cotsc's shape (vote with per-sample keys, samples with
// correct), so ReadSamples reads it for --by k and the vote curves.
type palDetail struct {
	Vote    reading.VoteResult `json:"vote"`
	Samples []PALSample        `json:"samples"`
}

func (s *pal) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if env.Exec == nil {
		return Result{}, errors.New("pal: the run has no sandbox to execute programs in")
	}
	prompt, err := render(env, "pal", PromptData{Input: inst.Input})
	if err != nil {
		return Result{}, err
	}
	resp, err := env.Sampler.Sample(ctx, llm.Request{
		Messages: userPrompt(prompt), N: s.k, Temperature: s.temperature, MaxTokens: s.maxTokens,
		Purpose: "pal", Call: "pal",
	})
	if err != nil {
		return Result{}, err
	}
	if len(resp.Choices) == 0 {
		return Result{}, errNoChoices("pal")
	}
	texts := resp.Texts()
	runs := make([]ProgramRun, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i, text := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], errs[i] = RunSolution(ctx, env.Exec, fmt.Sprintf("s%d/run", i), ExtractProgram(text), s.limits)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	samples := make([]PALSample, len(runs))
	answers := make([]string, len(runs)) // "" for a program without an answer: no vote
	correct, failed := 0, 0
	for i, r := range runs {
		smp := PALSample{Program: r.Program, Status: r.Status, Value: r.Value, Type: r.Type, Error: r.Error}
		if r.OK() {
			answers[i] = r.AnswerText()
			sc := env.Task.Score(inst, answers[i])
			smp.Answer, smp.Correct, smp.Reason = sc.Answer, sc.Correct, sc.Reason
		} else {
			failed++
			smp.Reason = "the program gave no answer: " + r.Error
		}
		if smp.Correct {
			correct++
		}
		samples[i] = smp
	}
	vote := Vote(env.Task, inst, answers, s.voteKey)
	res := Result{
		Metrics: map[string]float64{
			"sample_accuracy": float64(correct) / float64(len(samples)),
			"best_of_k":       boolFloat(correct > 0),
			"exec_failed":     float64(failed) / float64(len(samples)),
		},
		Detail: palDetail{Vote: vote, Samples: samples},
	}
	if vote.Winner >= 0 {
		res.Output = answers[vote.Winner]
		res.Score = env.Task.Score(inst, res.Output)
	} else {
		res.Score = tasks.Score{Reason: "no program gave an answer: " + runs[0].Error}
	}
	res.Accuracy = boolFloat(res.Score.Correct)
	res.Metrics = mergeMetrics(res.Metrics, res.Score.Metrics)
	return res, nil
}

// The sandbox program that runs a model's solution.py: it executes the
// file, calls solution(), and writes the result as the last line of
// standard output, after resultMarker, as JSON. While the model's code runs,
// sys.stdout is standard error, so its prints (visible in the stored
// execution, and counted against the output limit) never mix with the
// result. A program can still write to file descriptor 1 itself and so
// forge a result line, but only its own answer: nothing it can forge
// is checked against anything it could not have written itself. os._exit
// ends the process at once so that no atexit handler or thread writes after
// the result.
const (
	resultMarker = "__reasonbench_result__ "
	palDriver    = `import json, os, sys, traceback
def _main():
    out = sys.stdout
    sys.stdout = sys.stderr
    try:
        ns = {"__name__": "solution", "__builtins__": __builtins__}
        with open("solution.py", encoding="utf-8", errors="replace") as f:
            src = f.read()
        exec(compile(src, "solution.py", "exec"), ns)
        fn = ns.get("solution")
        if not callable(fn):
            sys.stderr.write("NoSolution: the program defines no function solution()\n")
            sys.stderr.flush()
            os._exit(3)
        value = fn()
        text = str(value)
        kind = type(value).__name__
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    line = "` + resultMarker + `" + json.dumps({"type": kind, "value": text[:100000]}) + "\n"
    sys.stderr.flush()
    out.write(line)
    out.flush()
    os._exit(0)
_main()
`
)

// ProgramRun is the outcome of running one program's solution().
type ProgramRun struct {
	Program string
	Status  string // sandbox.Status, "no_program" or "no_result"
	Value   string // str(solution())
	Type    string // the value's Python type
	Error   string // why there is no value
	Result  sandbox.Result
}

// OK reports that solution() returned a value.
func (r ProgramRun) OK() bool { return r.Status == string(sandbox.OK) }

// AnswerText is the executed answer as the task's scorer reads it.
func (r ProgramRun) AnswerText() string {
	v := strings.Join(strings.Fields(r.Value), " ")
	return "Answer: " + clip(v, 2000)
}

// Observation is what a program's run tells the model (Self-Refine PAL
// feedback and notes): its value or the error.
func (r ProgramRun) Observation() string {
	if r.OK() {
		return "solution() returned " + clip(r.Value, 500)
	}
	return "the program failed: " + r.Error
}

// maxValue bounds the value kept of solution()'s result (a program may
// return a huge string).
const maxValue = 4000

// maxProgram bounds a program sent to the sandbox; longer model output is
// cut (the cut program most likely fails to compile, a recorded failure).
const maxProgram = 64 << 10

// RunSolution runs program's solution() through ex at site. A program that
// fails is a ProgramRun with the reason; err is for a sandbox that could
// not run at all, which fails the item.
func RunSolution(ctx context.Context, ex tasks.Executor, site, program string, lim sandbox.Limits) (ProgramRun, error) {
	run := ProgramRun{Program: program}
	if strings.TrimSpace(program) == "" {
		run.Status, run.Error = "no_program", "the reply has no program"
		return run, nil
	}
	if len(program) > maxProgram {
		program = program[:maxProgram]
	}
	res, err := ex.Execute(ctx, site, sandbox.Program{Source: palDriver, Files: map[string]string{"solution.py": program}, Limits: lim})
	if err != nil {
		return run, fmt.Errorf("run %s: %w", site, err)
	}
	run.Result = res
	run.Status = string(res.Status)
	if !res.Passed() {
		run.Error = failure(res)
		return run, nil
	}
	var out struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	}
	last := lastLineTrimmed(res.Stdout)
	body, ok := strings.CutPrefix(last, resultMarker)
	if !ok || json.Unmarshal([]byte(body), &out) != nil {
		run.Status, run.Error = "no_result", "the program printed no result line"
		return run, nil
	}
	run.Value, run.Type = clip(out.Value, maxValue), clip(out.Type, 100)
	return run, nil
}

// failure is a failed run's reason: the limit hit, or the last line of the
// traceback.
func failure(res sandbox.Result) string {
	reason := res.Reason()
	if res.Status == sandbox.Exit || res.Status == sandbox.Memory {
		if l := lastLineTrimmed(res.Stderr); l != "" {
			reason += ": " + clip(l, 300)
		}
	}
	return reason
}

func lastLineTrimmed(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

var fence = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|$)")

// ExtractProgram finds the program in a reply: the first fenced block that
// defines solution (else the first python block, else the first block),
// or the whole reply when it has no fence.
func ExtractProgram(reply string) string {
	ms := fence.FindAllStringSubmatch(reply, -1)
	if len(ms) == 0 {
		return strings.TrimSpace(reply)
	}
	for _, m := range ms {
		if strings.Contains(m[2], "def solution") {
			return strings.TrimSpace(m[2])
		}
	}
	for _, m := range ms {
		if strings.EqualFold(m[1], "python") || strings.EqualFold(m[1], "py") {
			return strings.TrimSpace(m[2])
		}
	}
	return strings.TrimSpace(ms[0][2])
}
