package qa

import (
	"context"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/mathans"
)

// ScorerMath compares MATH-style answers (tasks/mathans): the last
// \boxed{} of the output (else "the answer is", else a final-answer
// fallback), equal to a gold answer by value and structure (math; math:strict
// requires the box), or by the original MATH string rule (math:hendrycks).
const ScorerMath = "math"

// Variants of the math scorer.
const (
	MathFull      = "full"
	MathStrict    = "strict"
	MathHendrycks = "hendrycks"
)

// FallbackNote marks an answer the math rule found without a box or "the
// answer is" (mathans.Fallback) where the item's answer is recorded.
const FallbackNote = " (fallback: not boxed)"

// mathScorer is the math scorer; a gold answer may be a whole solution
// (its last \boxed{} is the answer) or the answer itself.
type mathScorer struct{ variant string }

func newMathScorer(arg string, hasArg bool) (Scorer, error) {
	if !hasArg || arg == MathFull {
		return mathScorer{MathFull}, nil
	}
	if arg == MathHendrycks || arg == MathStrict {
		return mathScorer{arg}, nil
	}
	return nil, fmt.Errorf("scorer math: unknown variant %q (math is the full rule, math:strict requires a \\boxed{} answer, math:hendrycks the original MATH string rule)", arg)
}

func (s mathScorer) Name() string {
	if s.variant != MathFull {
		return ScorerMath + "(" + s.variant + ")"
	}
	return ScorerMath
}

func (s mathScorer) Describe() string {
	if s.variant == MathHendrycks {
		return "the last \\boxed{} answer equals the gold answer under the original MATH is_equiv string normalisation (hendrycks/math)"
	}
	if s.variant == MathStrict {
		return "the last \\boxed{} answer (required) equals the gold answer after normalisation, by value and structure (tasks/mathans)"
	}
	return "the last \\boxed{} answer (else \"the answer is\", else the last one-line inline math or the last number standing as a word, recorded as a fallback) equals the gold answer after normalisation, by value and structure (tasks/mathans)"
}

// Answer is the last box; under hendrycks, found as the original MATH
// evaluation finds it (no \fbox, "\boxed 5" or "the answer is"); under
// strict only a box; under the full rule, else the fallback.
func (s mathScorer) Answer(output string) (string, bool) {
	a, _, ok := s.answerFrom(output)
	return a, ok
}

// answerFrom is Answer, saying whether the answer is the fallback's.
func (s mathScorer) answerFrom(output string) (string, bool, bool) {
	switch s.variant {
	case MathHendrycks:
		a, ok := mathans.HendrycksExtract(output)
		return a, false, ok
	case MathStrict:
		a, ok := mathans.ExtractBoxed(output)
		return a, false, ok
	}
	if a, ok := mathans.Extract(output); ok {
		return a, false, true
	}
	a, ok := mathans.Fallback(output)
	return a, ok, ok
}

// goldAnswer is a gold text's answer: its last \boxed{} when it has one
// (a worked solution), else the text.
func goldAnswer(g string) string {
	if a, ok := mathans.Extract(g); ok && containsBox(g) { // gold solutions box with braces
		return a
	}
	return g
}

func containsBox(s string) bool {
	return strings.Contains(s, "\\boxed") || strings.Contains(s, "\\fbox")
}

func (s mathScorer) Key(_ Row, answer string) (string, bool) {
	if answer == "" {
		return "", false
	}
	if s.variant == MathHendrycks {
		return mathans.HendrycksKey(answer), true
	}
	return mathans.Key(context.Background(), answer), true
}

func (s mathScorer) Score(row Row, answer string) tasks.Score {
	for _, g := range row.Answers {
		gold := goldAnswer(g)
		var ok bool
		if s.variant == MathHendrycks {
			ok = mathans.Hendrycks(answer, gold)
		} else {
			ok = mathans.Equal(context.Background(), answer, gold)
		}
		if ok {
			return tasks.Score{Correct: true, Answer: answer}
		}
	}
	return tasks.Score{Answer: answer, Reason: fmt.Sprintf("%s is not %s", truncate(answer, maxErrText), truncate(goldAnswer(row.Gold()), maxErrText))}
}

func (mathScorer) Check(row Row) error {
	for _, g := range row.Answers {
		if goldAnswer(g) == "" {
			return fmt.Errorf("answer %q is empty for the math scorer", truncate(g, maxErrText))
		}
	}
	return nil
}
