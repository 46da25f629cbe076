package hotpotqa

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// respondRefAgent answers the prompts of the Reflexion reference agents
// (strategy reflexion_ref), recognised by their shape rather than their
// wording, so a prompt pack imported from the reference is answered too:
// one user turn whose text ends, after its last "Question:" line, in
// scratchpad lines and then a label to complete — "Thought:" or "Action:"
// (CoT), "Thought n:" or "Action n:" (ReAct), or a blank line and
// "Reflection:" (a reflection request).
//
//   - CoT Thought: the answer is chosen as the CoT answer is (effective
//     skill from the gold paragraphs the prompt shows, raised by Boost for
//     every reflection in the prompt that names a failure); the thought
//     ends "So the answer is X." and the Action turn copies X into
//     Finish[X]. The Action turn reads only the thought.
//   - ReAct Thought n: the ReAct policy of respondReAct over the
//     scratchpad's observations (a gold page counts as found when its first
//     sentence was observed): search the next gold title with probability
//     Skill, else a distractor or a mistyped title; finish when every gold
//     page is found or at step 5 (the model does not know the step limit).
//     The Action turn copies the thought's decision.
//   - Reflection: names the failure (sim.NamedFailure) when the scratchpad
//     shows the attempt failed — its Finish observation says INCORRECT, or
//     it has no Finish — from the prompt alone; it never compares with the
//     gold answer.
func respondRefAgent(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
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
	if qi < 0 {
		return llm.Choice{}, false
	}
	// The question line carries the scratchpad's first label when the
	// scratchpad is empty so far ("Question: q" + "\nThought:" puts it on
	// the next line, so this only strips a trailing space).
	q, ok := FindQuestion(strings.TrimSpace(strings.TrimPrefix(lines[qi], "Question:")))
	if !ok {
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
		return llm.Choice{Content: refCoTThought(q, text, rng, params)}, true
	default:
		var n int
		fmt.Sscan(m[2], &n)
		return llm.Choice{Content: refReActThought(q, body, n, rng, params)}, true
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
func refCoTThought(q Question, text string, rng *rand.Rand, params sim.Params) string {
	out := answerQA(q, text, rng, params) // "Answer: x" (the pack's wording has no CoT marker)
	ans := strings.TrimSpace(strings.TrimPrefix(out[strings.LastIndex(out, "Answer:"):], "Answer:"))
	return fmt.Sprintf("I connect the facts the question needs. So the answer is %s.", ans)
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

// refReActThought plays ReAct step n.
func refReActThought(q Question, body []string, n int, rng *rand.Rand, params sim.Params) string {
	gold := goldTitles(q)
	obs := ""
	for _, l := range body {
		if strings.HasPrefix(l, "Observation") {
			obs += l + "\n"
		}
	}
	next, found := -1, 0
	for i, t := range gold {
		if para, ok := paragraph(q, t); ok && len(para.Sentences) > 0 && strings.Contains(obs, firstSentence(para)) {
			found++
		} else if next < 0 {
			next = i
		}
	}
	if next < 0 || n >= 5 {
		g := float64(found) / float64(max(1, len(gold)))
		return fmt.Sprintf("I have read what I could find. So the answer is %s.", chooseAnswer(q, effectiveSkill(params.Skill, g), rng, params))
	}
	title := gold[next]
	switch {
	case rng.Float64() < params.Skill:
	case rng.IntN(2) == 0:
		title = distractorTitle(q, rng)
	default:
		title = sim.Mistype(title, rng)
	}
	return fmt.Sprintf("I need a fact I have not read yet. I will search %s.", title)
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
	failed := ans == "" || strings.Contains(verdict, "INCORRECT")
	switch {
	case !failed:
		return "I am not sure what went wrong: my answer seems to follow from what I read. Next time I will check each hop once more before answering."
	case ans == "":
		return sim.NamedFailure + " I did not finish with an answer. Next time I will look up the entities the question names first and finish as soon as I know the answer."
	default:
		return fmt.Sprintf("%s %s. Next time I will find the fact each hop needs and check that the answer is the kind of thing the question asks for.", sim.NamedFailure, capitalFirst(failure(ans)))
	}
}
