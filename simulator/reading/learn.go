package reading

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// The simulated model's learning from critiques (llm/sim's learn.go), on
// question-answer prompts: a reflection is asked for only after a failed
// attempt (the prompt says so), so it names the failure (sim.NamedFailure)
// and quotes the rejected answer after AnsweredMarker; later answers avoid
// every answer a critique in their prompt quotes, and each named failure
// raises Skill by Boost. Self-evaluation and feedback judge a proposed
// answer by whether it is the model's own considered answer, wrong with
// probability Misjudge: never by a gold answer, which the model does not
// have.

// AnsweredMarker begins the phrase in which a simulated critique quotes
// the answer it found wrong. Prompt templates must not contain it.
const AnsweredMarker = `I answered "`

// Rejected lists the answers critiques in the prompt found wrong.
func Rejected(p sim.Prompt) []string {
	var out []string
	for _, m := range p.Messages {
		if m.Role == "assistant" {
			continue
		}
		rest := m.Content
		for {
			i := strings.Index(rest, AnsweredMarker)
			if i < 0 {
				break
			}
			rest = rest[i+len(AnsweredMarker):]
			ans, after, ok := strings.Cut(rest, `"`)
			if !ok {
				break
			}
			out = append(out, ans)
			rest = after
		}
	}
	return out
}

// Avoid is the predicate Choose takes: whether an answer is one of the
// rejected ones, compared by same.
func Avoid(rejected []string, same func(a, b string) bool) func(string) bool {
	if len(rejected) == 0 {
		return nil
	}
	return func(ans string) bool {
		for _, r := range rejected {
			if same(ans, r) {
				return true
			}
		}
		return false
	}
}

// LineAfter returns the rest of the last line of text starting with
// prefix, trimmed.
func LineAfter(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// NoAnswer tells a proposed or final answer that is none.
func NoAnswer(ans string) bool { return ans == "" || ans == "(none)" }

// Reflection writes a reflection on a failed attempt whose final answer
// was ans: the prompt says it failed, so it names the failure and quotes
// the answer.
func Reflection(ans string) string {
	if NoAnswer(ans) {
		return sim.NamedFailure + " I gave no answer in time. Next time I will read what the question asks for first, look for the facts it needs, and answer as soon as I have them."
	}
	return fmt.Sprintf("%s %s%s\", which was judged wrong. Next time I will check each step against the question and what I read, and not give that answer again.",
		sim.NamedFailure, AnsweredMarker, OneLine(ans))
}

// OneLine is s on one line, without double quotes, at most 200 bytes.
func OneLine(s string) string {
	s = strings.ReplaceAll(strings.Join(strings.Fields(s), " "), `"`, "'")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// ReadJudged reads what a self-evaluation or feedback prompt shows: the
// question, its passages, the observations of its trajectory, and the
// proposed answer.
func ReadJudged(text string) (Reading, string, bool) {
	q, choices, ok := ReadQuestion(text)
	if !ok {
		return Reading{}, "", false
	}
	r := Reading{Question: q, Choices: choices, Passages: ReadPassages(text)}
	r.Passages = append(r.Passages, Observed(StepsFromText(text))...)
	return r, LineAfter(text, "Proposed answer:"), true
}

// Agrees tells whether ans is the thinker's own considered answer to the
// reading, wrong with probability Misjudge.
func Agrees(t Thinker, r Reading, ans string, rng *rand.Rand, params sim.Params) bool {
	agree := !NoAnswer(ans) && t.Same(ans, t.Consider(r).Answers[0])
	if rng.Float64() < params.Misjudge {
		agree = !agree
	}
	return agree
}

// SelfEval answers a self-evaluation prompt ("Judgement: correct" or
// "incorrect").
func SelfEval(t Thinker, text string, rng *rand.Rand, params sim.Params) string {
	r, ans, ok := ReadJudged(text)
	switch {
	case !ok:
		return "I cannot tell.\nJudgement: incorrect"
	case Agrees(t, r, ans, rng, params):
		return "Working it out again gives the same answer.\nJudgement: correct"
	}
	return "Working it out again gives a different answer.\nJudgement: incorrect"
}

// Feedback answers a feedback prompt: "No change needed." when it agrees,
// else the failure named with the answer quoted; a score out of 10.
func Feedback(t Thinker, text string, rng *rand.Rand, params sim.Params) string {
	r, ans, ok := ReadJudged(text)
	switch {
	case !ok:
		return "I cannot tell whether the answer is right.\nScore: 5/10"
	case Agrees(t, r, ans, rng, params):
		return "Each step checks out and the answer is what the question asks for. No change needed.\nScore: 10/10"
	}
	return fmt.Sprintf("%s %s%s\", but working it out again gives a different answer. Redo the steps and check each one.\nScore: %d/10",
		sim.NamedFailure, AnsweredMarker, OneLine(ans), 1+rng.IntN(4))
}
