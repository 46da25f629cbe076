package hotpotqa

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers by which the simulator recognises the bundled prompts, as a model
// recognises an instruction. Tests check the templates contain them.
const (
	markerQA         = "Answer the multi-hop question" // io and cot
	markerCoT        = "Think step by step"            // cot
	markerReAct      = "multi-hop question"            // every react prompt
	markerReActText  = "interleaving Thought, Action and Observation"
	markerReActJSON  = "exactly one JSON object"
	markerReActTools = "gathering facts with the tools"
	// markerLastStep is what the react strategy says on the last step.
	markerLastStep = "last step"
)

// SimResponder answers HotpotQA prompts for the simulated model.
//
// The simulated model finds the question in the prompt (the last
// "Question:" line) among the bundled questions, which is how it "knows"
// what it reads; the answer it may give then depends on what the prompt
// shows, and the noise parameters decide:
//
// IO and CoT (markers markerQA, markerCoT). Let g be the fraction of the
// question's gold paragraphs (those of its supporting facts) whose text is
// in the prompt. The effective skill is Skill × (0.5 + 0.5·g): with the
// gold paragraphs shown (context=gold) it is Skill, closed-book
// (context=none) half of it, standing for what a model recalls without
// reading. When distractor paragraphs are shown too (context=distractor) it
// is multiplied by 0.9, for picking the right paragraphs among ten.
// Questions differ in difficulty: the model gets the answer with
// probability p^γ for effective skill p, where γ = 3^(2u−1) and u in [0,1)
// is a hash of the question id (a fixed property of the question, so easy
// questions are easy for every strategy; skill 0 and 1 stay 0 and 1). Even
// then, with probability Slip it misreads it (yes/no flipped, a number off
// by one, a word of a longer answer dropped: partial F1). Otherwise it
// gives a plausible wrong answer: with probability 0.7 the question's one
// misconception (fixed per question, so that, as with real models, wrong
// samples agree more than chance and self-consistency gains are modest),
// else any of: the opposite for yes/no, for a comparison the other entity,
// the title of a distractor paragraph or a capitalised phrase from one.
// CoT writes a Thought line naming the gold paragraphs (quoting their
// supporting sentences when shown) before the Answer line.
//
// ReAct (markerReAct with markerReActText, markerReActJSON or
// markerReActTools; the tools protocol also when the request offers tools).
// The policy reads its trajectory: a gold title counts as found when its
// paragraph's first sentence appears in an observation. Each turn, unless
// every gold title is found or the last user turn says it is the last step,
// it searches the next gold title not yet found (supporting-fact order)
// with probability Skill; otherwise it searches a distractor title or
// mistypes the gold title (one letter dropped), half and half. Then it
// finishes, answering as above with effective skill Skill × (0.5 + 0.5·g),
// g the fraction of gold paragraphs found. In the text protocol it writes
// "Thought: ...\nAction: Search[...]", in the JSON protocol one object
// {"thought", "action", "input"}, in the tools protocol real tool calls
// (ids "call_<turn>_<4 hex>", JSON arguments) with the thought as reasoning
// content, and, once the tools are withdrawn, "Answer: ..." in text.
//
// All randomness comes from the rng the simulator passes in, so answers
// are deterministic per request and seed.
type SimResponder struct{}

// Respond implements sim.Responder.
func (SimResponder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	// Each critique naming a failure raises Skill by Boost (llm/sim/learn.go);
	// Reflexion and Self-Refine prompts are answered in sim_reflect.go.
	params = sim.Boosted(p, params)
	if c, ok := respondRefAgent(p, rng, params); ok { // the Reflexion reference agents, sim_refagent.go
		return c, true
	}
	if c, ok := respondLearning(p, rng, params); ok {
		return c, true
	}
	if c, ok := respondLATSValue(p, rng, params); ok { // sim_lats.go
		return c, true
	}
	if c, ok := respondThoughts(p, rng, params); ok { // sim_tot.go
		return c, true
	}
	first := firstUser(p)
	if strings.Contains(first, markerReAct) && (len(p.Tools) > 0 || strings.Contains(first, markerReActText) ||
		strings.Contains(first, markerReActJSON) || strings.Contains(first, markerReActTools)) {
		return respondReAct(p, first, rng, params)
	}
	text := p.Last("user")
	if !strings.Contains(text, markerQA) {
		return llm.Choice{}, false
	}
	q, ok := questionIn(text)
	if !ok {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: answerQA(q, text, rng, params)}, true
}

func firstUser(p sim.Prompt) string {
	for _, m := range p.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// questionIn finds the bundled question on the text's last "Question:" line.
func questionIn(text string) (Question, bool) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "Question:"); ok {
			return FindQuestion(rest)
		}
	}
	return Question{}, false
}

// goldTitles are the supporting-fact titles, in order, each once.
func goldTitles(q Question) []string {
	var out []string
	for _, sf := range q.SupportingFacts {
		dup := false
		for _, t := range out {
			dup = dup || t == sf.Title
		}
		if !dup {
			out = append(out, sf.Title)
		}
	}
	return out
}

func isGold(q Question, title string) bool {
	for _, t := range goldTitles(q) {
		if t == title {
			return true
		}
	}
	return false
}

// effectiveSkill is Skill × (0.5 + 0.5·g) for a fraction g of the gold
// paragraphs read.
func effectiveSkill(skill, g float64) float64 { return skill * (0.5 + 0.5*g) }

// distractorPenalty scales the effective skill when distractors are shown.
const distractorPenalty = 0.9

// answerQA writes an IO or CoT answer.
func answerQA(q Question, text string, rng *rand.Rand, params sim.Params) string {
	gold := goldTitles(q)
	shownGold, distract := 0, false
	for _, p := range q.Context {
		if !strings.Contains(text, strings.TrimSpace(p.Text())) {
			continue
		}
		if isGold(q, p.Title) {
			shownGold++
		} else {
			distract = true
		}
	}
	g := float64(shownGold) / float64(max(1, len(gold)))
	skill := effectiveSkill(params.Skill, g)
	if distract {
		skill *= distractorPenalty
	}
	ans := chooseAnswer(q, skill, rng, params)
	if !strings.Contains(text, markerCoT) {
		return "Answer: " + ans
	}
	var b strings.Builder
	b.WriteString("Thought: ")
	if shownGold > 0 {
		for _, t := range gold {
			p, ok := paragraph(q, t)
			if ok && strings.Contains(text, strings.TrimSpace(p.Text())) {
				fmt.Fprintf(&b, "From %s: %s ", t, supportingSentence(q, t))
			}
		}
	} else {
		fmt.Fprintf(&b, "I recall what I know about %s. ", strings.Join(gold, " and "))
	}
	fmt.Fprintf(&b, "So the answer is %s.\nAnswer: %s", ans, ans)
	return b.String()
}

// supportingSentence is the first supporting sentence of title, trimmed.
func supportingSentence(q Question, title string) string {
	p, ok := paragraph(q, title)
	if !ok {
		return ""
	}
	for _, sf := range q.SupportingFacts {
		if sf.Title == title && sf.Sentence >= 0 && sf.Sentence < len(p.Sentences) {
			return strings.TrimSpace(p.Sentences[sf.Sentence])
		}
	}
	return ""
}

// chooseAnswer is right with probability skill^difficulty(q), then
// misread with probability Slip; otherwise wrong: the question's
// misconception with probability misconceptionShare, else any plausible
// wrong answer.
func chooseAnswer(q Question, skill float64, rng *rand.Rand, params sim.Params) string {
	if rng.Float64() < math.Pow(skill, difficulty(q)) {
		if rng.Float64() < params.Slip {
			return misread(q, rng)
		}
		return q.Answer
	}
	if rng.Float64() < misconceptionShare {
		return misconception(q)
	}
	return wrongAnswer(q, rng)
}

// misconceptionShare is the share of wrong answers that are the
// question's one misconception: real models' mistakes on a question agree
// with each other more often than chance.
const misconceptionShare = 0.7

func questionHash(q Question) uint64 {
	h := fnv.New64a()
	h.Write([]byte(q.ID))
	return h.Sum64()
}

// difficulty is the question's exponent γ = 3^(2u−1), u in [0,1) a hash
// of its id: a probability p of answering becomes p^γ, so questions range
// from easy (γ = 1/3) to hard (γ = 3) around the mean, while skill 0 and 1
// stay 0 and 1. It is a fixed property of the question, like a puzzle's
// difficulty, not randomness.
func difficulty(q Question) float64 {
	u := float64(questionHash(q)>>11) / (1 << 53)
	return math.Pow(3, 2*u-1)
}

// misconception is the question's consistent wrong answer, a fixed
// function of the question (drawn with a generator seeded by its id).
func misconception(q Question) string {
	h := questionHash(q)
	return wrongAnswer(q, rand.New(rand.NewPCG(h, h>>1)))
}

func yesNo(s string) (string, bool) {
	switch Normalize(s) {
	case "yes":
		return "no", true
	case "no":
		return "yes", true
	}
	return "", false
}

// misread is the gold answer slightly wrong: yes/no flipped, a number off
// by one, a word of a longer answer dropped; else a wrong answer.
func misread(q Question, rng *rand.Rand) string {
	if flip, ok := yesNo(q.Answer); ok {
		return flip
	}
	words := strings.Fields(q.Answer)
	if len(words) >= 2 {
		cands := []string{strings.Join(words[1:], " "), strings.Join(words[:len(words)-1], " ")}
		if rng.IntN(2) == 0 {
			cands[0], cands[1] = cands[1], cands[0]
		}
		for _, c := range cands {
			if !ExactMatch(c, q.Answer) && Normalize(c) != "" {
				return c
			}
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(q.Answer)); err == nil {
		return strconv.Itoa(n + 1 - 2*rng.IntN(2))
	}
	return wrongAnswer(q, rng)
}

// wrongAnswer is a plausible wrong answer drawn from the paragraphs.
func wrongAnswer(q Question, rng *rand.Rand) string {
	if flip, ok := yesNo(q.Answer); ok {
		return flip
	}
	gold := Normalize(q.Answer)
	ok := func(s string) bool {
		n := Normalize(s)
		return n != "" && n != gold && !strings.Contains(n, gold) && !strings.Contains(gold, n)
	}
	if q.Type == "comparison" && rng.IntN(2) == 0 {
		var others []string
		for _, t := range goldTitles(q) {
			if t = stripParens(t); ok(t) {
				others = append(others, t)
			}
		}
		if len(others) > 0 {
			return others[rng.IntN(len(others))]
		}
	}
	var distractors []Paragraph
	for _, p := range q.Context {
		if !isGold(q, p.Title) {
			distractors = append(distractors, p)
		}
	}
	if len(distractors) == 0 {
		distractors = q.Context
	}
	for range 4 {
		p := distractors[rng.IntN(len(distractors))]
		cand := stripParens(p.Title)
		if rng.IntN(2) == 0 {
			if phrases := capitalisedPhrases(p.Text()); len(phrases) > 0 {
				cand = phrases[rng.IntN(len(phrases))]
			}
		}
		if ok(cand) {
			return cand
		}
	}
	return "unknown"
}

// stripParens drops a trailing disambiguation: "Love and Theft (duo)".
func stripParens(title string) string {
	if i := strings.LastIndex(title, " ("); i > 0 && strings.HasSuffix(title, ")") {
		return title[:i]
	}
	return title
}

// capitalisedPhrases returns runs of capitalised words (not starting a
// sentence), e.g. "Viacom International Media Networks".
func capitalisedPhrases(text string) []string {
	var out, run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, strings.Join(run, " "))
		}
		run = run[:0]
	}
	sentenceStart := true
	for _, w := range strings.Fields(text) {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		r, _ := utf8.DecodeRuneInString(core)
		capital := core != "" && unicode.IsUpper(r)
		if capital && !sentenceStart {
			run = append(run, core)
		} else {
			flush()
		}
		sentenceStart = strings.HasSuffix(w, ".")
		if strings.ContainsAny(w, ",;:()\"") && w != core {
			flush()
		}
	}
	flush()
	return out
}

// reactState is what the ReAct policy reads from the conversation.
type reactState struct {
	q     Question
	proto string // text, json or tools
	turn  int    // assistant turns so far
	gold  []string
	found []bool
	last  bool
}

func readReAct(p sim.Prompt, first string) (reactState, bool) {
	q, ok := questionIn(first)
	if !ok {
		return reactState{}, false
	}
	st := reactState{q: q, proto: "text", gold: goldTitles(q)}
	switch {
	case len(p.Tools) > 0 || strings.Contains(first, markerReActTools):
		st.proto = "tools"
	case strings.Contains(first, markerReActJSON):
		st.proto = "json"
	}
	st.found = make([]bool, len(st.gold))
	seenFirst := false
	for _, m := range p.Messages {
		switch m.Role {
		case "assistant":
			st.turn++
		case "user", "tool":
			if m.Role == "user" && !seenFirst {
				seenFirst = true
				continue
			}
			for i, t := range st.gold {
				if para, ok := paragraph(q, t); ok && len(para.Sentences) > 0 {
					if strings.Contains(m.Content, firstSentence(para)) {
						st.found[i] = true
					}
				}
			}
		}
	}
	st.last = strings.Contains(strings.ToLower(p.Last("user")), markerLastStep)
	return st, true
}

func firstSentence(p Paragraph) string {
	s := strings.TrimSpace(p.Sentences[0])
	if len(s) < 20 && len(p.Sentences) > 1 {
		s = strings.TrimSpace(p.Sentences[0] + p.Sentences[1])
	}
	return s
}

// respondReAct plays one ReAct turn.
func respondReAct(p sim.Prompt, first string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	st, ok := readReAct(p, first)
	if !ok {
		return llm.Choice{}, false
	}
	next := -1
	nFound := 0
	for i, f := range st.found {
		if f {
			nFound++
		} else if next < 0 {
			next = i
		}
	}
	var thought, action, input string
	if st.last || next < 0 {
		g := float64(nFound) / float64(max(1, len(st.gold)))
		input = chooseAnswer(st.q, effectiveSkill(params.Skill, g), rng, params)
		action = ToolFinish
		if next < 0 {
			thought = fmt.Sprintf("I have found what I need. The answer is %s.", input)
		} else {
			thought = fmt.Sprintf("I have to answer now. My best guess is %s.", input)
		}
	} else {
		action = ToolSearch
		title := st.gold[next]
		switch {
		case rng.Float64() < params.Skill:
			input = title
			thought = fmt.Sprintf("I need to search %s.", title)
		case rng.IntN(2) == 0:
			input = distractorTitle(st.q, rng)
			thought = fmt.Sprintf("Maybe %s is relevant. I will search it.", input)
		default:
			input = sim.Mistype(title, rng)
			thought = fmt.Sprintf("I need to search %s.", title)
		}
	}
	return renderReAct(st, thought, action, input, rng), true
}

func distractorTitle(q Question, rng *rand.Rand) string {
	var ds []string
	for _, p := range q.Context {
		if !isGold(q, p.Title) {
			ds = append(ds, p.Title)
		}
	}
	if len(ds) == 0 {
		return q.Context[rng.IntN(len(q.Context))].Title
	}
	return ds[rng.IntN(len(ds))]
}

// renderReAct writes the turn in the conversation's protocol.
func renderReAct(st reactState, thought, action, input string, rng *rand.Rand) llm.Choice {
	argName := "entity"
	if action == ToolFinish {
		argName = "answer"
	}
	return sim.ReActTurn(st.proto, st.last, st.turn, thought, action, argName, input, rng)
}
