package strategies

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// solvePAL is Self-Refine's GSM8K protocol (madaan/self-refine, src/gsm):
// the first program is written by the pal template (call i1/generate, at
// temperature); then each feedback call (i<n>/feedback, at
// feedback_temperature) is shown the current program alone, says what is
// wrong with it, and writes the program again fixed, in the same reply. The
// loop stops when the feedback says it is correct (stop_phrase; the
// presets use the reference's "it is correct") or `iterations` programs
// have been written. As in the reference, the feedback never sees the
// program run: the programs are executed (site i<n>/run) only to score each
// attempt, and the final answer is the last program's, which after a stop
// is the one the stopping feedback wrote.
//
// Where it differs from the reference: a feedback reply without a program
// ends the loop with the current program standing (stopped_by no_program;
// the reference's parser raises, and its wrapper retries the whole
// question); an executed answer is scored by the task's scorer (GSM8K's
// numeric one) where the reference compares str(result) with the gold
// number at tolerance 1e-3.
func (s *selfRefine) solvePAL(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if env.Exec == nil {
		return Result{}, errors.New("selfrefine protocol=pal: the run has no sandbox to execute programs in")
	}
	tracer := &stepCounter{Tracer: env.tracer()}
	prompt, err := render(env, "pal", PromptData{Input: inst.Input})
	if err != nil {
		return Result{}, err
	}
	reply, err := s.ask(ctx, env, prompt, "generate", "i1/generate")
	if err != nil {
		return Result{}, err
	}
	program := ExtractProgram(reply)
	var its []reading.RefineIteration
	stoppedBy := "limit"
	for i := 1; ; i++ {
		run, err := RunSolution(ctx, env.Exec, fmt.Sprintf("i%d/run", i), program, s.limits)
		if err != nil {
			return Result{}, err
		}
		it := reading.RefineIteration{Iteration: i, Program: program, Status: run.Status, Error: run.Error}
		if run.OK() {
			it.Output = run.AnswerText()
			sc := env.Task.Score(inst, it.Output)
			it.Answer, it.Correct, it.Metrics = sc.Answer, sc.Correct, sc.Metrics
		}
		its = append(its, it)
		if err := tracer.Step(ctx, 0, tracer.n, "program", program); err != nil {
			return Result{}, err
		}
		if err := tracer.Step(ctx, 0, tracer.n, "observation", run.Observation()); err != nil {
			return Result{}, err
		}
		if stoppedBy == "feedback" || i >= s.iterations {
			break
		}
		fp, err := render(env, "pal_feedback", palFeedbackData{Input: inst.Input, Program: program})
		if err != nil {
			return Result{}, err
		}
		fb, err := askOne(ctx, env, fp, "feedback", fmt.Sprintf("i%d/feedback", i), s.feedbackTmp, s.maxTokens)
		if err != nil {
			return Result{}, err
		}
		cur := &its[len(its)-1]
		critique, next := SplitFeedback(fb)
		if err := s.review(ctx, tracer, cur, critique); err != nil {
			return Result{}, err
		}
		if next == "" {
			stoppedBy = "no_program"
			break
		}
		if cur.Stop {
			stoppedBy = "feedback" // the program it wrote is run, and is the answer
		}
		program = next
	}
	res := s.result(env, inst, its, stoppedBy)
	failed := 0
	for _, it := range its {
		if it.Status != "ok" {
			failed++
		}
	}
	res.Metrics["exec_failed"] = float64(failed) / float64(len(its))
	// The reference's accuracy at attempt N: some program up to the Nth was
	// right (its evaluation stops at the first correct attempt).
	any := false
	for i := 1; i <= s.iterations; i++ {
		if i <= len(its) {
			any = any || its[i-1].Correct
		}
		res.Metrics[fmt.Sprintf("any_by_iteration_%d", i)] = boolFloat(any)
	}
	return res, nil
}

// palFeedbackData is what the pal_feedback template sees.
type palFeedbackData struct {
	Input   string
	Program string
}

// SplitFeedback splits a feedback reply into the critique and the fixed
// program: the program is the reply's first fenced block defining
// solution (ExtractProgram), or without a fence everything from
// "def solution" on, as the reference splits; the critique is the text
// before it. A reply without a program gives "".
func SplitFeedback(reply string) (feedback, program string) {
	if loc := fence.FindStringSubmatchIndex(reply); loc != nil {
		for _, m := range fence.FindAllStringSubmatchIndex(reply, -1) {
			if strings.Contains(reply[m[4]:m[5]], "def solution") {
				loc = m
				break
			}
		}
		return strings.TrimSpace(reply[:loc[0]]), strings.TrimSpace(reply[loc[4]:loc[5]])
	}
	i := strings.Index(reply, "def solution")
	if i < 0 {
		return strings.TrimSpace(reply), ""
	}
	return strings.TrimSpace(reply[:i]), strings.TrimSpace(reply[i:])
}
