package hotpotqa

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
)

// respondRefAgent answers the prompts of the Reflexion reference agents
// (strategy reflexion_ref), recognised by their shape rather than their
// wording, so a prompt pack imported from the reference is answered too:
// one user turn whose text ends, after its last "Question:" line, in
// scratchpad lines and then a label to complete — "Thought:" or "Action:"
// (CoT), "Thought n:" or "Action n:" (ReAct), or a blank line and
// "Reflection:" (a reflection request). It reads only the prompt.
//
//   - CoT Thought: the answer is chosen as the CoT answer is, from the
//     paragraphs the prompt shows ("Relevant Context:", or none), with Skill
//     raised by Boost for every reflection in the prompt that names a
//     failure and the answers they quote avoided; the thought ends "So the
//     answer is X." and the Action turn copies X into Finish[X]. The Action
//     turn reads only the thought.
//   - ReAct Thought n: the ReAct policy of respondReAct over the
//     scratchpad's actions and observations; it answers by reading.Finish,
//     at step 5 at the latest (the model does not know the step limit).
//     The Action turn copies the thought's decision.
//   - Reflection: names the failure when the scratchpad shows the attempt
//     failed — its Finish observation says INCORRECT, or it has no Finish —
//     quoting the answer; otherwise a vague reflection naming nothing.
func respondRefAgent(p sim.Prompt, rng *rand.Rand, params sim.Params, avoid func(string) bool) (llm.Choice, bool) {
	if len(p.Messages) != 1 || p.Messages[0].Role != "user" {
		return llm.Choice{}, false
	}
	text := p.Messages[0].Content
	lines := strings.Split(text, "\n")
	qi := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "Question:") {
			qi = i
			break
		}
	}
	if qi < 0 || strings.TrimSpace(strings.TrimPrefix(lines[qi], "Question:")) == "" {
		return llm.Choice{}, false
	}
	pad := lines[qi+1:]
	if len(pad) == 0 {
		return llm.Choice{}, false
	}
	last := pad[len(pad)-1]
	body := pad[:len(pad)-1]
	if last == "Reflection:" {
		if len(body) < 2 || body[len(body)-1] != "" {
			return llm.Choice{}, false
		}
		body = body[:len(body)-1]
	}
	for _, l := range body {
		if !refPadLine.MatchString(l) {
			return llm.Choice{}, false
		}
	}
	m := refLabel.FindStringSubmatch(last)
	switch {
	case last == "Reflection:":
		return llm.Choice{Content: refReflect(body)}, true
	case m == nil:
		return llm.Choice{}, false
	case m[1] == "Action":
		return llm.Choice{Content: refActionFrom(body)}, true
	case m[2] == "":
		return llm.Choice{Content: refCoTThought(text, rng, params, avoid)}, true
	default:
		var n int
		fmt.Sscan(m[2], &n)
		return refReActThought(text, n, rng, params, avoid)
	}
}

var (
	refPadLine = regexp.MustCompile(`^(Thought|Action|Observation)( \d+)?:`)
	refLabel   = regexp.MustCompile(`^(Thought|Action)(?: (\d+))?:$`)
	refSoAns   = regexp.MustCompile(`So the answer is (.+)\.$`)
	refSearch  = regexp.MustCompile(`I will search (.+)\.$`)
	refFinish  = regexp.MustCompile(`^Action(?: \d+)?: Finish\[(.+)\]$`)
)

// refCoTThought writes the CoT agent's thought.
func refCoTThought(text string, rng *rand.Rand, params sim.Params, avoid func(string) bool) string {
	r, _ := readPrompt(text)
	out := answerQA(r, false, rng, params, avoid) // "Answer: x"
	return fmt.Sprintf("I connect the facts the question needs. So the answer is %s.", strings.TrimPrefix(out, "Answer: "))
}

// refActionFrom turns the last thought into its action.
func refActionFrom(body []string) string {
	if len(body) == 0 {
		return "Finish[unknown]"
	}
	thought := body[len(body)-1]
	if m := refSoAns.FindStringSubmatch(thought); m != nil {
		return "Finish[" + m[1] + "]"
	}
	if m := refSearch.FindStringSubmatch(thought); m != nil {
		return "Search[" + m[1] + "]"
	}
	return "Finish[unknown]"
}

// refLastStep is the step at which the ReAct agent answers at the latest.
const refLastStep = 5

// refReActThought plays ReAct step n over the scratchpad.
func refReActThought(text string, n int, rng *rand.Rand, params sim.Params, avoid func(string) bool) (llm.Choice, bool) {
	t, ok := reading.ReadScratchpad(text)
	if !ok {
		return llm.Choice{}, false
	}
	t.Last = n >= refLastStep
	plan := searchPlan(t)
	if ans, _, done := reading.Finish(reading.Plain{}, t, maxSearches, len(plan) == 0, rng, params, avoid); done {
		return llm.Choice{Content: fmt.Sprintf("I have read what I could find. So the answer is %s.", ans)}, true
	}
	query, _ := nextSearch(t, plan, rng, params)
	return llm.Choice{Content: fmt.Sprintf("I need a fact I have not read yet. I will search %s.", query)}, true
}

// refReflect reflects on a scratchpad from what it shows.
func refReflect(body []string) string {
	ans, verdict := "", ""
	for i, l := range body {
		if m := refFinish.FindStringSubmatch(l); m != nil {
			ans = m[1]
			if i+1 < len(body) {
				verdict = body[i+1]
			}
		}
	}
	if ans != "" && !strings.Contains(verdict, "INCORRECT") {
		return "I am not sure what went wrong: my answer seems to follow from what I read. Next time I will check each hop once more before answering."
	}
	return reading.Reflection(ans)
}
