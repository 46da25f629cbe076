package qa

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// Markers by which the simulator recognises the qa templates (prompts/qa,
// and GSM8K's io and cot). Tests check the templates contain them.
const (
	markerQA         = "Task: answer a question"
	markerIO         = "Reply with the answer alone"
	markerCoT        = "Work it out step by step"
	markerDocstore   = "docstore of passages"
	markerReActText  = "Reply to each turn with one line"
	markerReActJSON  = "exactly one JSON object"
	markerReActTools = "call one tool per turn"
	markerToTSample  = "Write the next line of reasoning only"
	markerToTLast    = "the last: write the answer"
	markerToTVote    = "Decide which choice is most promising"
	markerLATSValue  = "Rate how promising the trajectory"
)

// Responder answers the qa templates for the simulated model.
//
// It reads only the prompt, through simulator/reading: the question and its
// lettered choices, the passages shown, and in ReAct the observations it
// has made. From them it forms a belief (read.go): answer candidates
// with the considered one first, and the lines of reasoning behind it —
//
//   - a calculation (no passages, two or more quantities): the considered
//     chain of math.go, written out step by step;
//   - lettered choices: the choice a passage sentence best connects with
//     the question (with passages), the one equal to the calculated number
//     (arithmetic), else a fixed arbitrary preference (a guess);
//   - passages, or nothing to go on: reading.Consider (the sentences
//     sharing most words with the question, a second hop through a name
//     the first gives, the names and numbers they give that the question
//     does not say; yes/no and "A or B" questions; closed-book guesses
//     among the question's own names).
//
// An answer is the considered one with probability Skill (for a
// calculation, per step; answering without writing steps, io, per step
// with probability Skill²), else another candidate drawn with sim.Pick;
// with probability Slip a correct-looking answer is misread (another
// candidate, or a step off by one). Whether the considered answer is right
// depends only on how well these readings fit the data, which the
// simulator never sees; so skill scales accuracy up to that ceiling.
//
// Learning (reading's learn.go): a reflection names the failure and
// quotes the rejected answer; later answers avoid every answer a critique
// in the prompt quotes, and each named failure raises Skill by Boost.
// Self-evaluation and feedback judge a proposed answer by whether it is
// the model's own considered answer, wrong with probability Misjudge.
//
// ReAct: it searches the question's own words with probability Skill
// (else a listed page title, or a mistyped query), reads the
// observations, and finishes once what it observed is reading.Enough, at
// the last step, or after three searches (reading.Finish).
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	first := reading.FirstUser(p)
	if !strings.Contains(first, markerQA) {
		return llm.Choice{}, false
	}
	params = sim.Boosted(p, params)
	if c, ok := respondSteps(p, rng, params); ok {
		return c, true
	}
	text := p.Last("user")
	avoid := reading.Avoid(reading.Rejected(p), sameAnswer)
	switch sim.Which(text, sim.MarkerReflect, sim.MarkerSelfEval, sim.MarkerFeedback, sim.MarkerRefine,
		markerToTSample, markerToTVote, markerLATSValue) {
	case sim.MarkerReflect:
		return llm.Choice{Content: reading.Reflection(reading.LineAfter(text, "Final answer:"))}, true
	case sim.MarkerSelfEval:
		return llm.Choice{Content: reading.SelfEval(thinker{}, text, rng, params)}, true
	case sim.MarkerFeedback:
		return llm.Choice{Content: reading.Feedback(thinker{}, text, rng, params)}, true
	case sim.MarkerRefine:
		r, ok := readPrompt(text)
		if !ok {
			return llm.Choice{}, false
		}
		return llm.Choice{Content: writeAnswer(r, rng, params, true, avoid)}, true
	case markerToTSample:
		return sampleLine(text, rng, params)
	case markerToTVote:
		r, ok := readPrompt(text)
		blocks := reading.ChoiceBlocks(text)
		if !ok || len(blocks) == 0 {
			return llm.Choice{}, false
		}
		return llm.Choice{Content: reading.Vote(thinker{}, r, blocks, rng, params)}, true
	case markerLATSValue:
		t, ok := reading.ReadScratchpad(text)
		if !ok {
			return llm.Choice{}, false
		}
		return llm.Choice{Content: reading.Value(t, rng, params)}, true
	}
	if strings.Contains(first, markerReActPython) {
		return respondReActPython(p, first, rng, params)
	}
	if strings.Contains(text, markerPAL) || strings.Contains(text, markerPALFeedback) {
		return respondPAL(p, rng, params)
	}
	if strings.Contains(first, markerDocstore) {
		return respondReAct(p, first, rng, params, avoid)
	}
	if !strings.Contains(text, markerIO) && !strings.Contains(text, markerCoT) {
		return llm.Choice{}, false
	}
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: writeAnswer(r, rng, params, strings.Contains(text, markerCoT), avoid)}, true
}

// readPrompt reads the question, its choices and the passages of a prompt.
func readPrompt(text string) (reading.Reading, bool) {
	q, choices, ok := reading.ReadQuestion(text)
	if !ok {
		return reading.Reading{}, false
	}
	return reading.Reading{Question: q, Choices: choices, Passages: reading.ReadPassages(text)}, true
}

// writeAnswer answers an io or cot (or refine) prompt.
func writeAnswer(r reading.Reading, rng *rand.Rand, params sim.Params, cot bool, avoid func(string) bool) string {
	var ans string
	var lines []string
	if arithmetic(r) && len(r.Choices) == 0 {
		m, _ := readProblem(r.Question)
		skill := params.Skill
		if !cot {
			skill *= skill
		}
		var steps []chainStep
		var v *big.Rat
		for range 4 { // a rejected result is worked out again
			steps, v = m.sampleChain(rng, skill, params.Slip, params.Focus, r.Question)
			if avoid == nil || !avoid(formatRat(v)) {
				break
			}
		}
		ans, lines = formatRat(v), writeSteps(steps)
	} else {
		b := thinker{}.Consider(r)
		var considered bool
		ans, considered = reading.Choose(b, rng, params, params.Skill, r.Question, avoid)
		lines = b.Lines
		if !considered {
			lines = []string{fmt.Sprintf("I think the answer is %s.", ans)}
		}
	}
	if !cot {
		return "Answer: " + ans
	}
	return strings.Join(append(lines, "Answer: "+ans), "\n")
}

// running is the result of the last calculation line ("a op b = c"), or
// nil.
func running(lines []string) *big.Rat {
	var v *big.Rat
	for _, l := range lines {
		if i := strings.LastIndex(l, "="); i >= 0 {
			if x, ok := qa.LastNumber(l[i:]); ok {
				v = x
			}
		}
	}
	return v
}

// sampleLine writes the next line of a ToT chain: a calculation step, or
// reading.SampleLine.
func sampleLine(text string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	lines := reading.ThoughtLines(text)
	last := strings.Contains(text, markerToTLast)
	if !arithmetic(r) || len(r.Choices) > 0 {
		return llm.Choice{Content: reading.SampleLine(thinker{}, r, lines, last, rng, params)}, true
	}
	m, _ := readProblem(r.Question)
	v := running(lines)
	if v == nil {
		v = m.qs[0].val
	}
	done := len(lines) // one step a line
	if !last && done < len(m.options) {
		o := m.pick(done, rng, params.Skill, params.Focus, r.Question)
		next, ok := apply(v, o, m.qs[done+1].val)
		if o == opSkip || !ok {
			return llm.Choice{Content: fmt.Sprintf("The %s does not matter here.", m.qs[done+1].text)}, true
		}
		return llm.Choice{Content: writeSteps([]chainStep{{before: v, op: o, q: m.qs[done+1], after: next}})[0]}, true
	}
	for i := done; i < len(m.options); i++ {
		if next, ok := apply(v, m.pick(i, rng, params.Skill, params.Focus, r.Question), m.qs[i+1].val); ok {
			v = next
		}
	}
	return llm.Choice{Content: "Answer: " + formatRat(v)}, true
}
