package game24

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// respondLearning answers the reflection, self-evaluation, feedback and
// refine prompts, following the simulator's learning model (see llm/sim's
// learn.go):
//
//   - reflect: if the attempt really failed (its final answer is not a
//     correct expression) the reflection names the failure after
//     sim.NamedFailure: the first step with wrong arithmetic, else the first
//     step after which the numbers left cannot make 24, else what is wrong
//     with the final expression; a plan to avoid it follows. An attempt that
//     was right gets a vague reflection naming nothing.
//   - self_eval: "Judgement: correct" iff the proposed answer is correct,
//     flipped with probability Misjudge.
//   - feedback: judged as self_eval. Judged right: "No change needed." and
//     "Score: 10/10". Judged wrong and really wrong: the failure named as in
//     a reflection, "Score: 1..4/10". Judged wrong but right: a vague doubt,
//     "Score: 5/10".
//   - refine: a new attempt played as the CoT answer is, with Skill already
//     raised by Boost for each feedback in the history that named a failure
//     (sim.Boosted, applied by Respond).
func (c *moveCache) respondLearning(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	if !strings.Contains(text, markerTask) {
		return llm.Choice{}, false
	}
	kind := sim.Which(text, sim.MarkerReflect, sim.MarkerSelfEval, sim.MarkerFeedback, sim.MarkerRefine)
	if kind == "" {
		return llm.Choice{}, false
	}
	nums, ok := lastInput(text)
	if !ok {
		return llm.Choice{}, false
	}
	var out string
	switch kind {
	case sim.MarkerReflect:
		ans, _ := afterLast(text, "Final answer:")
		out = reflectOn(nums, between(text, "Previous trial:", "(END PREVIOUS TRIAL)"), ans)
	case sim.MarkerSelfEval:
		ans, _ := afterLast(text, "Proposed answer:")
		right := answerRight(nums, ans)
		judged := right != (rng.Float64() < params.Misjudge)
		if judged {
			out = "Each step's arithmetic checks out, and the expression uses every input number once and equals 24.\nJudgement: correct"
		} else {
			out = "I do not think the expression uses every input number once and equals 24.\nJudgement: incorrect"
		}
	case sim.MarkerFeedback:
		ans, _ := afterLast(text, "Proposed answer:")
		right := answerRight(nums, ans)
		judged := right != (rng.Float64() < params.Misjudge)
		switch {
		case judged:
			out = "Each step's arithmetic is right, and the expression uses every input number once and equals 24. No change needed.\nScore: 10/10"
		case !right:
			_, why, advice := diagnose(nums, between(text, "Attempt:", "Proposed answer:"), ans)
			out = fmt.Sprintf("%s %s. %s.\nScore: %d/10", sim.NamedFailure, why, advice, 1+rng.IntN(4))
		default:
			out = "I am not sure this is right; another combination of the numbers may be safer.\nScore: 5/10"
		}
	case sim.MarkerRefine:
		steps, expr := c.play(newBoard(game24.Rats(nums)), rng, params)
		var b strings.Builder
		b.WriteString("Steps:\n")
		for _, s := range steps {
			b.WriteString(s)
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "Answer: %s = 24", expr)
		out = b.String()
	}
	return llm.Choice{Content: out}, true
}

// answerRight checks a proposed expression ("(none)" or "" for none).
func answerRight(nums []int, ans string) bool {
	if ans == "" || ans == "(none)" {
		return false
	}
	return game24.Check(nums, "Answer: "+ans).Correct
}

// between returns the text after the last start marker up to the end
// marker after it (or the end).
func between(text, start, end string) string {
	i := strings.LastIndex(text, start)
	if i < 0 {
		return ""
	}
	rest := text[i+len(start):]
	if j := strings.Index(rest, end); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// reflectOn writes the simulated reflection on a trial whose final answer
// was ans.
func reflectOn(nums []int, trial, ans string) string {
	failed, why, advice := diagnose(nums, trial, ans)
	if !failed {
		return "I am not sure what went wrong: the steps and the expression look right to me. Next time I will check each step and the final expression once more before answering."
	}
	return fmt.Sprintf("%s %s. %s.", sim.NamedFailure, why, advice)
}

// diagnose finds what went wrong with an attempt whose final expression is
// ans: failed is false when the answer is in fact correct.
func diagnose(nums []int, attempt, ans string) (failed bool, why, advice string) {
	if answerRight(nums, ans) {
		return false, "", ""
	}
	state := game24.Rats(nums)
	for _, raw := range strings.Split(attempt, "\n") {
		line := strings.TrimSpace(raw)
		line = strings.TrimSpace(strings.TrimPrefix(line, "Observation:"))
		st, err := game24.ParseStep(line)
		if err != nil {
			continue
		}
		step := stepText(st)
		next, err := game24.Apply(state, st)
		if err != nil {
			if strings.Contains(err.Error(), "wrong arithmetic") {
				exact, _ := game24.Arith(st.Op, st.A, st.B)
				res := "undefined"
				if exact != nil {
					res = game24.FormatNumber(exact)
				}
				return true, fmt.Sprintf("the step %s has wrong arithmetic, since %s %c %s = %s",
						step, game24.FormatNumber(st.A), st.Op, game24.FormatNumber(st.B), res),
					"Next time I will compute every step exactly and check it before writing the numbers left"
			}
			return true, fmt.Sprintf("the step %s uses a number that was not left (%s)", step, game24.FormatState(state)),
				"Next time I will only combine numbers that are still left"
		}
		if game24.Solvable(state) && !game24.Solvable(next) {
			return true, fmt.Sprintf("after the step %s the numbers left (%s) cannot make 24", step, game24.FormatState(next)),
				"Next time I will check that the numbers left after each step can still make 24, and choose another pair if not"
		}
		state = next
	}
	if ans == "" || ans == "(none)" {
		return true, "I gave no final expression", "Next time I will finish with one expression that uses each input number exactly once"
	}
	v := game24.Check(nums, "Answer: "+ans)
	return true, fmt.Sprintf("the final expression %s is wrong (%s)", ans, v.Reason),
		"Next time I will make sure the final expression uses each input number exactly once and equals 24"
}

// stepText writes a step's arithmetic as the model wrote it.
func stepText(st game24.Step) string {
	return fmt.Sprintf("%s %c %s = %s", game24.FormatNumber(st.A), st.Op, game24.FormatNumber(st.B), game24.WrittenNumber(st.Result, st.ResultDecimals))
}
