package qa

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
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
	markerLastStep   = "last step" // what the react strategy says on the last step
)

// SimResponder answers the qa templates for the simulated model.
//
// It reads only the prompt (simread.go): the question and its lettered
// choices, the passages shown, and in ReAct the observations it has made.
// From them it forms a belief: answer candidates with the considered one
// first, and the lines of reasoning behind it —
//
//   - a calculation (no passages, two or more quantities): the considered
//     chain of simmath.go, written out step by step;
//   - lettered choices: the choice a passage sentence best connects with
//     the question (with passages), the one equal to the calculated number
//     (arithmetic), else a fixed arbitrary preference (a guess);
//   - passages: the sentence sharing most words with the question, and
//     the names and numbers in it that the question does not already say
//     (yes or no for a yes/no question: yes when the sentence covers half
//     the question's words without a negation), then those of the next
//     sentences;
//   - nothing to go on (closed book): a guess among the question's own
//     names, or yes/no.
//
// An answer is the considered one with probability Skill (for a
// calculation, per step; answering without writing steps, io, per step
// with probability Skill²), else another candidate drawn with sim.Pick;
// with probability Slip a correct-looking answer is misread (another
// candidate, or a step off by one). Whether the considered answer is right
// depends only on how well these readings fit the data, which the
// simulator never sees; so skill scales accuracy up to that ceiling.
//
// Learning (llm/sim's learn.go): a reflect prompt says the attempt failed,
// so the reflection names the failure (sim.NamedFailure) and quotes the
// rejected answer after answeredMarker; later answers avoid every answer a
// critique in the prompt quotes, and each named failure raises Skill by
// Boost. Self-evaluation and feedback judge a proposed answer by whether
// it is the model's own considered answer, wrong with probability
// Misjudge.
//
// ReAct: it searches the question's own words with probability Skill
// (else a listed page title, or a mistyped query), reads the
// observations, and finishes once an observed sentence covers half the
// question's words, at the last step, or after three searches, answering
// from what it observed (effective skill halved when nothing relevant was
// found).
type SimResponder struct{}

// Respond implements sim.Responder.
func (SimResponder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	first := firstUser(p)
	if !strings.Contains(first, markerQA) {
		return llm.Choice{}, false
	}
	params = sim.Boosted(p, params)
	text := p.Last("user")
	rej := rejected(p)
	switch sim.Which(text, sim.MarkerReflect, sim.MarkerSelfEval, sim.MarkerFeedback, sim.MarkerRefine,
		markerToTSample, markerToTVote, markerLATSValue) {
	case sim.MarkerReflect:
		return llm.Choice{Content: reflection(text)}, true
	case sim.MarkerSelfEval:
		return llm.Choice{Content: selfEval(text, rng, params)}, true
	case sim.MarkerFeedback:
		return llm.Choice{Content: feedback(text, rng, params)}, true
	case sim.MarkerRefine:
		r, ok := readPrompt(text)
		if !ok {
			return llm.Choice{}, false
		}
		return llm.Choice{Content: writeAnswer(r, rng, params, true, rej)}, true
	case markerToTSample:
		return sampleLine(text, rng, params)
	case markerToTVote:
		return vote(text, rng, params)
	case markerLATSValue:
		return latsValue(text, rng, params)
	}
	if strings.Contains(first, markerDocstore) {
		return respondReAct(p, first, rng, params, rej)
	}
	if !strings.Contains(text, markerIO) && !strings.Contains(text, markerCoT) {
		return llm.Choice{}, false
	}
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: writeAnswer(r, rng, params, strings.Contains(text, markerCoT), rej)}, true
}

func firstUser(p sim.Prompt) string {
	for _, m := range p.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// readPrompt reads the question, its choices and the passages of a prompt.
func readPrompt(text string) (reading, bool) {
	q, choices, ok := readQuestion(text)
	if !ok {
		return reading{}, false
	}
	return reading{question: q, choices: choices, passages: readPassages(text)}, true
}

// choose draws an answer from a belief: the considered one with
// probability skill, else another candidate by sim.Pick; then with
// probability slip another candidate. Rejected answers are avoided while
// others remain.
func choose(b belief, rng *rand.Rand, params sim.Params, skill float64, taste string, rej []string) (string, bool) {
	cands := b.answers
	if len(rej) > 0 {
		var keep []string
		for _, c := range cands {
			if !isRejected(c, rej) {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			cands = keep
		}
	}
	pick := func() string { return cands[1+sim.Pick(rng, params.Focus, taste, cands[1:])] }
	if len(cands) == 1 {
		return cands[0], !isRejected(cands[0], rej) && b.answers[0] == cands[0]
	}
	if rng.Float64() < skill {
		if rng.Float64() < params.Slip {
			return pick(), false
		}
		return cands[0], cands[0] == b.answers[0]
	}
	return pick(), false
}

// writeAnswer answers an io or cot (or refine) prompt.
func writeAnswer(r reading, rng *rand.Rand, params sim.Params, cot bool, rej []string) string {
	var ans string
	var lines []string
	if r.arithmetic() && len(r.choices) == 0 {
		m, _ := readProblem(r.question)
		skill := params.Skill
		if !cot {
			skill *= skill
		}
		var steps []chainStep
		var v *big.Rat
		for range 4 { // a rejected result is worked out again
			steps, v = m.sampleChain(rng, skill, params.Slip, params.Focus, r.question)
			if !isRejected(formatRat(v), rej) {
				break
			}
		}
		ans, lines = formatRat(v), writeSteps(steps)
	} else {
		b := consider(r)
		var considered bool
		ans, considered = choose(b, rng, params, params.Skill, r.question, rej)
		lines = b.lines
		if !considered {
			lines = []string{fmt.Sprintf("I think the answer is %s.", ans)}
		}
	}
	if !cot {
		return "Answer: " + ans
	}
	return strings.Join(append(lines, "Answer: "+ans), "\n")
}

// lineAfter returns the rest of the last line starting with prefix.
func lineAfter(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// withObservations adds the sentences a trajectory in the text observed to
// the reading's passages.
func withObservations(r reading, text string) reading {
	for _, line := range strings.Split(text, "\n") {
		if _, obs, ok := strings.Cut(line, "Observation"); ok && strings.HasPrefix(strings.TrimSpace(line), "Observation") {
			if _, body, ok := strings.Cut(obs, ":"); ok {
				r.passages = append(r.passages, sentenceList(cleanObservation(body))...)
			}
		}
	}
	return r
}

// reflection writes a reflection on a failed attempt: the prompt says it
// failed, so it names the failure and quotes the answer.
func reflection(text string) string {
	ans := lineAfter(text, "Final answer:")
	if ans == "" || ans == "(none)" {
		return sim.NamedFailure + " I gave no answer in time. Next time I will read what the question asks for first, and answer as soon as the steps give it."
	}
	return fmt.Sprintf("%s %s%s\", which was judged wrong. Next time I will redo each step, check it against the question, and not give that answer again.",
		sim.NamedFailure, answeredMarker, oneLine(ans))
}

func oneLine(s string) string {
	return truncate(strings.ReplaceAll(strings.Join(strings.Fields(s), " "), `"`, "'"), 200)
}

// judge tells whether the proposed answer in a self_eval or feedback
// prompt is the model's own considered one, wrong with probability
// Misjudge; it also returns the answer.
func judge(text string, rng *rand.Rand, params sim.Params) (bool, string, bool) {
	r, ok := readPrompt(text)
	if !ok {
		return false, "", false
	}
	r = withObservations(r, text)
	ans := lineAfter(text, "Proposed answer:")
	b := consider(r)
	agree := ans != "" && ans != "(none)" && sameAnswer(ans, b.answers[0])
	if rng.Float64() < params.Misjudge {
		agree = !agree
	}
	return agree, ans, true
}

func selfEval(text string, rng *rand.Rand, params sim.Params) string {
	ok, _, read := judge(text, rng, params)
	switch {
	case !read:
		return "I cannot tell.\nJudgement: incorrect"
	case ok:
		return "Working it out again gives the same answer.\nJudgement: correct"
	}
	return "Working it out again gives a different answer.\nJudgement: incorrect"
}

func feedback(text string, rng *rand.Rand, params sim.Params) string {
	ok, ans, read := judge(text, rng, params)
	switch {
	case !read:
		return "I cannot tell whether the answer is right.\nScore: 5/10"
	case ok:
		return "Each step checks out and the answer is what the question asks for. No change needed.\nScore: 10/10"
	}
	return fmt.Sprintf("%s %s%s\", but working it out again gives a different answer. Redo the steps and check each one.\nScore: %d/10",
		sim.NamedFailure, answeredMarker, oneLine(ans), 1+rng.IntN(4))
}

// thoughtState reads the reasoning lines of a tot_sample prompt.
func thoughtState(text string) []string {
	_, so, _ := strings.Cut(text, "Reasoning so far:\n")
	so, _, _ = strings.Cut(so, "\nNext line:")
	var lines []string
	for _, l := range strings.Split(so, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "(none)" {
			lines = append(lines, l)
		}
	}
	return lines
}

// running is the result of the last calculation line ("a op b = c"), or
// nil.
func running(lines []string) *big.Rat {
	var v *big.Rat
	for _, l := range lines {
		if i := strings.LastIndex(l, "="); i >= 0 {
			if x, ok := lastNumber(l[i:]); ok {
				v = x
			}
		}
	}
	return v
}

// sampleLine writes the next line of a ToT chain.
func sampleLine(text string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	lines := thoughtState(text)
	last := strings.Contains(text, markerToTLast)
	if r.arithmetic() && len(r.choices) == 0 {
		m, _ := readProblem(r.question)
		v := running(lines)
		if v == nil {
			v = m.qs[0].val
		}
		done := len(lines) // one step a line
		if !last && done < len(m.options) {
			o := m.pick(done, rng, params.Skill, params.Focus, r.question)
			next, ok := apply(v, o, m.qs[done+1].val)
			if o == opSkip || !ok {
				return llm.Choice{Content: fmt.Sprintf("The %s does not matter here.", m.qs[done+1].text)}, true
			}
			return llm.Choice{Content: writeSteps([]chainStep{{before: v, op: o, q: m.qs[done+1], after: next}})[0]}, true
		}
		for i := done; i < len(m.options); i++ {
			if next, ok := apply(v, m.pick(i, rng, params.Skill, params.Focus, r.question), m.qs[i+1].val); ok {
				v = next
			}
		}
		return llm.Choice{Content: "Answer: " + formatRat(v)}, true
	}
	b := consider(r)
	if len(r.passages) > 0 && !last {
		order := rankSentences(r.question, r.passages)
		var fresh []int
		for _, i := range order {
			if !citedIn(lines, r.passages[i]) {
				fresh = append(fresh, i)
			}
		}
		if len(fresh) > 0 {
			pick := fresh[0]
			if rng.Float64() >= params.Skill && len(fresh) > 1 {
				pick = fresh[1+rng.IntN(len(fresh)-1)]
			}
			return llm.Choice{Content: "From the passages: " + r.passages[pick]}, true
		}
	}
	if !last && len(lines) == 0 && len(b.lines) > 0 {
		if rng.Float64() < params.Skill {
			return llm.Choice{Content: b.lines[0]}, true
		}
		return llm.Choice{Content: "I am not sure yet."}, true
	}
	skill := params.Skill
	if len(r.passages) > 0 && !citedIn(lines, r.passages[rankSentences(r.question, r.passages)[0]]) {
		skill *= 0.5 // the line that matters was not read
	}
	ans, _ := choose(b, rng, params, skill, r.question, nil)
	return llm.Choice{Content: "Answer: " + ans}, true
}

// citedIn tells whether a reasoning line cites the sentence.
func citedIn(lines []string, sentence string) bool {
	for _, l := range lines {
		if strings.Contains(l, sentence) {
			return true
		}
	}
	return false
}

// choiceBlocks splits a tot_vote prompt into its choices' texts.
func choiceBlocks(text string) []string {
	parts := strings.Split(text, "\nChoice ")
	var out []string
	for _, p := range parts[1:] {
		_, body, _ := strings.Cut(p, "\n")
		out = append(out, body)
	}
	return out
}

// vote picks the choice that agrees most with the model's own reasoning:
// its calculation steps or cited sentences, and its considered answer;
// with probability Misjudge a random choice.
func vote(text string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	blocks := choiceBlocks(text)
	if len(blocks) == 0 {
		return llm.Choice{}, false
	}
	b := consider(r)
	var top []string
	if len(r.passages) > 0 {
		for _, i := range rankSentences(r.question, r.passages)[:min(2, len(r.passages))] {
			top = append(top, r.passages[i])
		}
	}
	best, bestScore := 0, -1
	for i, blk := range blocks {
		score := 0
		for _, l := range strings.Split(blk, "\n") {
			l = strings.TrimSpace(l)
			for _, want := range b.lines {
				if l != "" && l == want {
					score++
				}
			}
			for _, s := range top {
				if strings.Contains(l, s) {
					score++
				}
			}
			if a, ok := strings.CutPrefix(l, "Answer:"); ok && sameAnswer(a, b.answers[0]) {
				score += 2
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if rng.Float64() < params.Misjudge {
		best = rng.IntN(len(blocks))
	}
	return llm.Choice{Content: fmt.Sprintf("Choice %d agrees best with how I would work it out.\nThe best choice is %d", best+1, best+1)}, true
}

// relevance is how well observed or shown sentences cover the question:
// the best sentence's share of the question's words, capped at 1 when it
// reaches half of them.
func relevance(question string, sents []string) float64 {
	want := contentWords(question)
	if len(want) == 0 {
		return 0
	}
	best := 0
	for _, s := range sents {
		best = max(best, overlap(want, s))
	}
	return math.Min(1, 2*float64(best)/float64(len(want)))
}

// latsValue rates a trajectory by how relevant what it observed is, less
// two for each failed search or invalid action; with probability Misjudge
// a uniform score.
func latsValue(text string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	r = withObservations(r, text)
	g := relevance(r.question, r.passages)
	bad := strings.Count(text, "Invalid action") + strings.Count(text, "Could not find")
	score := min(max(2+int(7*g+0.5)-2*bad, 1), 10)
	why := fmt.Sprintf("What the trajectory has read covers %.0f%% of what the question needs", 100*g)
	if rng.Float64() < params.Misjudge {
		score, why = 1+rng.IntN(10), "It is hard to say how far this trajectory has come"
	}
	return llm.Choice{Content: fmt.Sprintf("%s.\nScore: %d/10", why, score)}, true
}

// cleanObservation drops the docstore's framing from an observation.
func cleanObservation(obs string) string {
	obs = strings.TrimSpace(obs)
	if strings.HasPrefix(obs, "No page is titled") {
		if i := strings.Index(obs, "; the closest page is "); i >= 0 {
			if _, body, ok := strings.Cut(obs[i:], ": "); ok {
				obs = body
			}
		}
	}
	if strings.HasPrefix(obs, "(Result ") {
		if _, body, ok := strings.Cut(obs, ") "); ok {
			obs = body
		}
	}
	return obs
}
