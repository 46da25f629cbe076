// Package math500 is the simulated model's responder for MATH-500's
// templates (prompts/math500): a declared, weak simulated solver, labelled
// simulated like every simulator figure.
//
// It reads only the prompt: the problem after "Problem:". Its one skill is
// arithmetic: when the problem asks to compute, evaluate, find or simplify
// a closed-form numeric expression (a $...$ segment with no variable whose
// value is an exact rational, read by tasks/mathans's parser, never run),
// it works the expression out with probability Skill, and then with
// probability Slip writes a result off by one. Every other problem (most
// of MATH) it cannot solve: it answers with a quantity the problem states
// or the value of one of its numeric segments, drawn with sim.Pick (taste:
// the problem; Focus makes samples agree), a plausible guess that is
// rarely right. So its accuracy is low, and that is honest.
//
// It writes a solution as steps separated by a blank line ("\n\n"), the
// last step giving the answer in \boxed{}; io asks for the boxed answer
// alone. When the conversation ends with a partial assistant solution (a
// continuation request, as step-level beam search makes with
// continue_final_message), it returns only the rest: the steps after those
// written, the answer taken from the partial's last stated result when it
// has one, so a path stays consistent. The model cuts its text at the
// request's stop strings ("\n\n": one step).
package math500

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/mathans"
)

// Markers of the math500 templates; tests check the templates carry them.
const (
	markerTask = "Task: solve a competition mathematics problem"
	markerIO   = "Give only the final answer"
	markerCoT  = "Separate the steps with a blank line"
	markerProb = "Problem:"
)

// StepSep separates solution steps.
const StepSep = "\n\n"

// Responder answers the math500 templates.
type Responder struct{}

var (
	mathSeg   = regexp.MustCompile(`\$([^$]+)\$`)
	numberRe  = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
	askVerb   = regexp.MustCompile(`(?i)^(compute|evaluate|calculate|find|what is|simplify|determine)\b`)
	statedRes = regexp.MustCompile(`(?:gives|=)\s*\$?([^$\n]+?)\$?\.?\s*$`)
)

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	user := p.Last("user")
	if !strings.Contains(user, markerTask) {
		return llm.Choice{}, false
	}
	_, problem, ok := strings.Cut(user, markerProb)
	if !ok {
		return llm.Choice{}, false
	}
	problem = strings.TrimSpace(problem)
	sol := solve(problem, rng, params)
	if strings.Contains(user, markerIO) {
		return llm.Choice{Content: "\\boxed{" + sol.answer + "}"}, true
	}
	steps := sol.steps()
	if n := len(p.Messages); n > 1 && p.Messages[n-1].Role == "assistant" {
		return llm.Choice{Content: continuation(p.Messages[n-1].Content, sol)}, true
	}
	return llm.Choice{Content: strings.Join(steps, StepSep)}, true
}

// solution is what the responder decided: the expression it works out (or
// the quantities it guesses from) and its answer.
type solution struct {
	expr    string   // the evaluated expression, "" for a guess
	givens  []string // the quantities a guess starts from
	answer  string
	guessed bool
}

func (s solution) steps() []string {
	if !s.guessed {
		return []string{
			fmt.Sprintf("We need the value of $%s$.", s.expr),
			fmt.Sprintf("Carrying out the operations in order, $%s = %s$.", s.expr, s.answer),
			fmt.Sprintf("The answer is $\\boxed{%s}$.", s.answer),
		}
	}
	given := "the quantities in the problem"
	if len(s.givens) > 0 {
		given = "$" + strings.Join(s.givens, "$, $") + "$"
	}
	return []string{
		"We start from " + given + ".",
		fmt.Sprintf("Combining them as the problem describes gives $%s$.", s.answer),
		fmt.Sprintf("The answer is $\\boxed{%s}$.", s.answer),
	}
}

// solve works out the problem's answer as far as the skill goes.
func solve(problem string, rng *rand.Rand, params sim.Params) solution {
	ctx := context.Background()
	segs := mathSeg.FindAllStringSubmatch(problem, 20)
	var values []string // the values of the problem's numeric segments
	for _, m := range segs {
		if v, ok := mathans.Evaluate(ctx, m[1]); ok {
			values = append(values, v)
		}
	}
	if e, v, ok := arithmetic(problem, segs); ok && rng.Float64() < params.Skill {
		if rng.Float64() < params.Slip {
			v = offByOne(v, rng)
		}
		return solution{expr: e, answer: v}
	}
	// A guess among the problem's own quantities.
	labels := uniq(append(values, numberRe.FindAllString(stripSegs(problem), 8)...))
	for _, m := range segs {
		labels = uniq(append(labels, numberRe.FindAllString(m[1], 4)...))
	}
	if len(labels) == 0 {
		labels = []string{"0", "1", "2"}
	}
	pick := labels[sim.Pick(rng, params.Focus, "math500 guess: "+problem, labels)]
	return solution{givens: firstN(labels, 3), answer: pick, guessed: true}
}

// arithmetic recognises a purely arithmetic question: an asking verb, few
// other words, and one numeric segment the parser evaluates.
func arithmetic(problem string, segs [][]string) (expr, value string, ok bool) {
	if !askVerb.MatchString(problem) || len(segs) == 0 {
		return "", "", false
	}
	if words := strings.Fields(stripSegs(problem)); len(words) > 10 {
		return "", "", false
	}
	best := ""
	for _, m := range segs {
		if v, ok := mathans.Evaluate(context.Background(), m[1]); ok && len(m[1]) > len(best) {
			best, value = m[1], v
		}
	}
	return best, value, best != ""
}

func stripSegs(s string) string { return mathSeg.ReplaceAllString(s, " ") }

// offByOne is a slip: the value plus or minus one.
func offByOne(v string, rng *rand.Rand) string {
	r, ok := new(big.Rat).SetString(strings.NewReplacer("\\frac{", "", "}{", "/", "}", "").Replace(v))
	if !ok {
		return v + "+1"
	}
	d := big.NewRat(1, 1)
	if rng.IntN(2) == 0 {
		d.Neg(d)
	}
	return mathans.RatLatex(r.Add(r, d))
}

// continuation returns the steps after those the partial solution wrote;
// a result the partial already stated is the answer it carries on with.
func continuation(partial string, sol solution) string {
	if strings.Contains(partial, "\\boxed") {
		return ""
	}
	done := 0
	last := ""
	for _, s := range strings.Split(partial, StepSep) {
		if s = strings.TrimSpace(s); s != "" {
			done++
			last = s
		}
	}
	if m := statedRes.FindStringSubmatch(last); m != nil {
		if a := strings.TrimSpace(m[1]); a != "" && len(a) < 200 {
			sol.answer = a
		}
	}
	steps := sol.steps()
	if done >= len(steps) {
		done = len(steps) - 1
	}
	return strings.Join(steps[done:], StepSep)
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}
