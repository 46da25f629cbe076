package strategies

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// selfRefine is Self-Refine (Madaan et al., 2023): the model answers (the
// task's cot prompt), gives feedback on its own answer (<task>/feedback), and
// refines it (<task>/refine, which carries every earlier attempt with its
// feedback, as in the paper), until the feedback says no change is needed
// or `iterations` answers have been written. The stop test is a phrase in
// the feedback (stop=phrase, stop_phrase) or a score it gives, "Score: N/10"
// (stop=score, score_threshold). No feedback is asked on the last allowed
// answer, which could change nothing.
//
// after_iteration_N is the task's score of the answer standing after
// iteration N (the current answer, not "any so far"; the last one for items
// that stopped earlier). An item interrupted by a crash is redone whole.
type selfRefine struct {
	iterations     int
	stop           string
	stopPhrase     string
	scoreThreshold float64
	temperature    *float64
	maxTokens      int
	context        string
	// protocol=pal (selfrefine_pal.go): programs, feedback on the program
	// that writes the fixed program, executed answers.
	protocol    string
	feedbackTmp *float64
	limits      sandbox.Limits
}

// Self-Refine protocols.
const (
	RefineAnswer = "answer"
	RefinePAL    = "pal"
	RefineCode   = "code"
)

// Self-Refine stop tests.
const (
	StopPhrase = "phrase"
	StopScore  = "score"
)

var selfRefineParams = []param.Param{
	{Name: "iterations", Kind: param.Int, Default: 4, Min: param.Bound(1), Max: param.Bound(100), Doc: "answers at most: the first and up to iterations-1 refinements"},
	{Name: "stop", Kind: param.String, Default: StopPhrase, Allowed: []string{StopPhrase, StopScore},
		Doc: "when the feedback stops the loop: phrase (it contains stop_phrase) or score (its Score: N/10 reaches score_threshold)"},
	{Name: "stop_phrase", Kind: param.String, Default: "no change needed", Doc: "stop=phrase: feedback containing this (any case) stops"},
	{Name: "score_threshold", Kind: param.Float, Default: 9.0, Min: param.Bound(0), Max: param.Bound(10), Doc: "stop=score: feedback scoring at least this (out of 10) stops"},
	temperatureParam("temperature", 0.7, "sampling temperature of every call"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit per call (0: server default)"},
	contextParam,
	{Name: "protocol", Kind: param.String, Default: RefineAnswer, Allowed: []string{RefineAnswer, RefinePAL, RefineCode}, Late: true,
		Doc: "answer: the cot/feedback/refine templates above; pal: the Self-Refine GSM8K protocol, a program written by the pal template, one feedback call (pal_feedback) that critiques it and writes the fixed program, every program run in the sandbox and scored by its executed answer; code: programming tasks, each function run on the docstring's visible examples in the sandbox, the results shown to the feedback (selfrefine_code_feedback) and refine (selfrefine_code_refine) calls, the last function scored by the hidden tests"},
	lateParam(temperatureParam("feedback_temperature", 0.7, "protocol=pal: sampling temperature of the feedback calls (the reference's 0.7; temperature is the first program's)")),
	lateParam(timeoutParam), // protocol=code: per example, and for defining the function
}

// selfRefineTemplates are the templates selfrefine renders (Spec.Templates).
func selfRefineTemplates(v param.Values) []string {
	switch v.WithDefaults(selfRefineParams).String("protocol") {
	case RefinePAL:
		return []string{"pal", "pal_feedback"}
	case RefineCode:
		return []string{"selfrefine_code_init", "selfrefine_code_feedback", "selfrefine_code_refine"}
	}
	return []string{"cot", "feedback", "refine"}
}

func newSelfRefine(v param.Values) (Strategy, error) {
	v = v.WithDefaults(selfRefineParams)
	s := &selfRefine{iterations: v.Int("iterations"), stop: v.String("stop"), stopPhrase: strings.TrimSpace(v.String("stop_phrase")),
		scoreThreshold: v.Float("score_threshold"), temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"),
		context: v.String("context"), protocol: v.String("protocol"), feedbackTmp: v.Temperature("feedback_temperature"),
		limits: limitsOf(v.Float("timeout"))}
	if s.stop == StopPhrase && s.stopPhrase == "" {
		return nil, errors.New("parameter stop_phrase: must not be empty with stop=phrase")
	}
	return s, nil
}

// CheckTask rejects a context the task does not offer, and protocol=code
// on a task that is not a programming task.
func (s *selfRefine) CheckTask(t tasks.Task) error {
	if _, ok := t.(tasks.Coding); s.protocol == RefineCode && !ok {
		return fmt.Errorf("selfrefine protocol=code needs a programming task (humaneval, mbpp, a code file task), not %s", t.Name())
	}
	return checkContext(t, s.context)
}

// NeedsSandbox: protocol=pal runs every program it writes, protocol=code
// every function on its examples.
func (s *selfRefine) NeedsSandbox() string {
	switch s.protocol {
	case RefinePAL:
		return "protocol=pal runs the model's programs to score each attempt"
	case RefineCode:
		return "protocol=code runs the model's functions on the docstring's examples for the feedback"
	}
	return ""
}

// refineAttempt is an earlier attempt as the refine template sees it (no
// verdict: the model must not see the truth).
type refineAttempt struct {
	Iteration int
	Output    string
	Answer    string
	Feedback  string
}

// refinePromptData is what the feedback and refine templates see.
type refinePromptData struct {
	Input   string
	Context string
	Output  string          // feedback: the attempt judged
	Answer  string          // feedback: its extracted answer ("(none)" if none)
	History []refineAttempt // refine: every attempt so far with its feedback
}

func (s *selfRefine) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	switch s.protocol {
	case RefinePAL:
		return s.solvePAL(ctx, env, inst)
	case RefineCode:
		return s.solveCode(ctx, env, inst)
	}
	data, err := promptData(env.Task, inst, s.context)
	if err != nil {
		return Result{}, err
	}
	tracer := &stepCounter{Tracer: env.tracer()}
	prompt, err := render(env, "cot", data)
	if err != nil {
		return Result{}, err
	}
	its, stoppedBy, err := s.refineLoop(ctx, env, tracer, prompt, refineSteps{
		attempt: func(i int, out string) (reading.RefineIteration, error) {
			sc := env.Task.Score(inst, out)
			it := reading.RefineIteration{Iteration: i, Output: out, Answer: sc.Answer, Correct: sc.Correct, Metrics: sc.Metrics}
			return it, tracer.Step(ctx, 0, tracer.n, "answer", out)
		},
		feedback: func(cur reading.RefineIteration) (string, error) {
			return render(env, "feedback", refinePromptData{Input: data.Input, Context: data.Context,
				Output: strings.TrimSpace(cur.Output), Answer: shownAnswer(cur.Answer)})
		},
		refine: func(its []reading.RefineIteration) (string, error) {
			rd := refinePromptData{Input: data.Input, Context: data.Context}
			for _, it := range its {
				rd.History = append(rd.History, refineAttempt{Iteration: it.Iteration, Output: strings.TrimSpace(it.Output),
					Answer: shownAnswer(it.Answer), Feedback: it.Feedback})
			}
			return render(env, "refine", rd)
		},
	})
	if err != nil {
		return Result{}, err
	}
	return s.result(env, inst, its, stoppedBy), nil
}

// refineSteps are what a protocol does in the refine loop.
type refineSteps struct {
	// attempt reads reply i (1-based) into its iteration, scored, and
	// records its trajectory steps.
	attempt func(i int, reply string) (reading.RefineIteration, error)
	// feedback renders the feedback prompt on the latest iteration.
	feedback func(cur reading.RefineIteration) (string, error)
	// refine renders the next refine prompt from every iteration so far,
	// each with its feedback.
	refine func(its []reading.RefineIteration) (string, error)
}

// refineLoop is the Self-Refine loop of the answer and code protocols:
// the first reply to prompt, then feedback on each reply and a refinement
// carrying the history, until the feedback stops it (stopped by
// "feedback") or s.iterations replies are written ("limit"); no feedback
// is asked on the last.
func (s *selfRefine) refineLoop(ctx context.Context, env Env, tracer *stepCounter, prompt string, p refineSteps) ([]reading.RefineIteration, string, error) {
	var its []reading.RefineIteration
	for i := 1; ; i++ {
		purpose := map[bool]string{true: "generate", false: "refine"}[i == 1]
		reply, err := s.ask(ctx, env, prompt, purpose, fmt.Sprintf("i%d/%s", i, purpose))
		if err != nil {
			return nil, "", err
		}
		it, err := p.attempt(i, reply)
		if err != nil {
			return nil, "", err
		}
		its = append(its, it)
		if i >= s.iterations {
			return its, "limit", nil
		}
		cur := &its[len(its)-1]
		fp, err := p.feedback(*cur)
		if err != nil {
			return nil, "", err
		}
		if err := s.askFeedback(ctx, env, tracer, cur, fp, i); err != nil {
			return nil, "", err
		}
		if cur.Stop {
			return its, "feedback", nil
		}
		if prompt, err = p.refine(its); err != nil {
			return nil, "", err
		}
	}
}

// shownAnswer is an extracted answer as the prompts show it.
func shownAnswer(a string) string {
	if a == "" {
		return "(none)"
	}
	return a
}

// review records a feedback on its iteration (the score it names, whether
// it stops the loop) and as a trajectory step: every protocol's feedback
// is read alike.
func (s *selfRefine) review(ctx context.Context, tracer *stepCounter, it *reading.RefineIteration, feedback string) error {
	it.Feedback = feedback
	if v, ok := FeedbackScore(feedback); ok {
		it.Score = &v
	}
	it.Stop = s.stops(*it)
	return tracer.Step(ctx, 0, tracer.n, "feedback", feedback)
}

// askFeedback asks iteration i's feedback (call i<i>/feedback) with the
// rendered prompt and reviews it on it: the harness's and the code
// protocol's step (PAL's feedback also carries the next program).
func (s *selfRefine) askFeedback(ctx context.Context, env Env, tracer *stepCounter, it *reading.RefineIteration, prompt string, i int) error {
	fb, err := s.ask(ctx, env, prompt, "feedback", fmt.Sprintf("i%d/feedback", i))
	if err != nil {
		return err
	}
	return s.review(ctx, tracer, it, strings.TrimSpace(fb))
}

// stops applies the stop test to an iteration's feedback.
func (s *selfRefine) stops(it reading.RefineIteration) bool {
	if s.stop == StopScore {
		return it.Score != nil && *it.Score >= s.scoreThreshold
	}
	return strings.Contains(strings.ToLower(it.Feedback), strings.ToLower(s.stopPhrase))
}

var feedbackScore = regexp.MustCompile(`(?i)score\s*[:=]\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?))?`)

// FeedbackScore reads the last "Score: N/10" (or "Score: N", taken out of
// 10; "N/M" is rescaled to 10) of a feedback.
func FeedbackScore(feedback string) (float64, bool) {
	ms := feedbackScore.FindAllStringSubmatch(feedback, -1)
	if len(ms) == 0 {
		return 0, false
	}
	m := ms[len(ms)-1]
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	if m[2] != "" {
		if d, err := strconv.ParseFloat(m[2], 64); err == nil && d > 0 {
			v = v / d * 10
		}
	}
	return v, true
}

func (s *selfRefine) ask(ctx context.Context, env Env, prompt, purpose, call string) (string, error) {
	return askOne(ctx, env, prompt, purpose, call, s.temperature, s.maxTokens)
}

func (s *selfRefine) result(env Env, inst tasks.Instance, its []reading.RefineIteration, stoppedBy string) Result {
	final := its[len(its)-1]
	m := map[string]float64{"iterations": float64(len(its)), "stopped_early": boolFloat(stoppedBy == "feedback")}
	anyCorrect := false
	for _, it := range its {
		anyCorrect = anyCorrect || it.Correct
	}
	m["any_correct"] = boolFloat(anyCorrect)
	for i := 1; i <= s.iterations; i++ {
		k := min(i, len(its)) - 1
		m[fmt.Sprintf("after_iteration_%d", i)] = boolFloat(its[k].Correct)
		m[fmt.Sprintf("ran_iteration_%d", i)] = boolFloat(i <= len(its))
	}
	sc := env.Task.Score(inst, final.Output)
	return Result{Output: final.Output, Score: sc, Accuracy: boolFloat(sc.Correct), Metrics: mergeMetrics(m, sc.Metrics),
		Detail: reading.SelfRefineDetail{Stop: s.stop, Iterations: its, StoppedBy: stoppedBy}}
}
