package qa

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// How the simulated model reads a question-answer prompt, and what it
// believes the answer is. It sees only the prompt: the question, its
// lettered choices, the passages shown, and (in ReAct) the observations.
// It never sees a gold answer: file tasks and GSM8K run through `bench
// serve-sim`, which knows no data at all.

// reading is what the model takes from a prompt.
type reading struct {
	question string
	choices  []string
	passages []string // sentences of the passages shown (or observed)
}

// stopLabels end the question block of a prompt.
var stopLabels = []string{"Reasoning so far:", "Choice ", "Attempt", "Proposed answer:", "Final answer:", "Thought:",
	"Action:", "Observation", "Feedback", "Next line:", "Passages:", "Answer:", "{", "(end of"}

// maxPrompt bounds how much of a prompt the simulator reads.
const maxPrompt = 256 << 10

// readQuestion finds the last "Question:" block: the question, then its
// lettered choices ("A. text").
func readQuestion(text string) (string, []string, bool) {
	if len(text) > maxPrompt {
		text = text[len(text)-maxPrompt:]
	}
	i := strings.LastIndex(text, "Question: ")
	if i < 0 || (i > 0 && text[i-1] != '\n') {
		return "", nil, false
	}
	var q []string
	var choices []string
	for n, line := range strings.Split(text[i+len("Question: "):], "\n") {
		t := strings.TrimSpace(line)
		if n > 0 && (t == "" || hasLabel(t)) {
			break
		}
		if n > 0 && len(t) > 3 && t[1] == '.' && t[2] == ' ' && int(t[0])-'A' == len(choices) {
			choices = append(choices, strings.TrimSpace(t[3:]))
			continue
		}
		if len(choices) > 0 {
			break
		}
		q = append(q, t)
	}
	question := strings.TrimSpace(strings.Join(q, " "))
	return question, choices, question != ""
}

func hasLabel(line string) bool {
	for _, l := range stopLabels {
		if strings.HasPrefix(line, l) {
			return true
		}
	}
	return false
}

// readPassages returns the sentences of the text under "Passages:" (up
// to the question), titles dropped.
func readPassages(text string) []string {
	i := strings.LastIndex(text, "\nPassages:\n")
	if i < 0 {
		return nil
	}
	body := text[i+len("\nPassages:\n"):]
	if j := strings.Index(body, "\nQuestion: "); j >= 0 {
		body = body[:j]
	}
	var out []string
	for _, para := range splitBlank(body) {
		out = append(out, sentenceList(para)...)
	}
	return out
}

// sentenceList splits a text into trimmed sentences.
func sentenceList(text string) []string {
	var out []string
	for _, s := range sentences(text) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// contentWords are the question's normalised words that say what it is
// about (stopwords dropped).
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(hotpotqa.Normalize(s)) {
		if !stopword[w] {
			out[w] = true
		}
	}
	return out
}

// overlap counts the words of want that s contains.
func overlap(want map[string]bool, s string) int {
	seen := map[string]bool{}
	for _, w := range strings.Fields(hotpotqa.Normalize(s)) {
		if want[w] {
			seen[w] = true
		}
	}
	return len(seen)
}

// rankSentences orders sentence indexes by overlap with the question,
// most first (ties in order).
func rankSentences(question string, sents []string) []int {
	want := contentWords(question)
	type sc struct{ i, n int }
	ss := make([]sc, len(sents))
	for i, s := range sents {
		ss[i] = sc{i, overlap(want, s)}
	}
	for a := 1; a < len(ss); a++ {
		for b := a; b > 0 && ss[b].n > ss[b-1].n; b-- {
			ss[b], ss[b-1] = ss[b-1], ss[b]
		}
	}
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = s.i
	}
	return out
}

// yesNoQuestion tells a question answered by yes or no.
func yesNoQuestion(q string) bool {
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(q)), " ")
	switch first {
	case "is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had", "will", "would", "should":
		return true
	}
	return false
}

// arithmetic tells a question the model works out by calculation: no
// passages, and at least two quantities.
func (r reading) arithmetic() bool {
	return len(r.passages) == 0 && len(quantities(r.question)) >= 2
}

// spans are the answer-like phrases of a sentence that the question does
// not already say: runs of capitalised words and numbers.
func spans(sentence, question string) []string {
	qn := " " + hotpotqa.Normalize(question) + " "
	var out, run []string
	flush := func() {
		if len(run) > 0 {
			s := strings.Join(run, " ")
			if n := hotpotqa.Normalize(s); n != "" && !strings.Contains(qn, " "+n+" ") {
				out = append(out, s)
			}
		}
		run = run[:0]
	}
	for k, w := range strings.Fields(sentence) {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		r, _ := utf8.DecodeRuneInString(core)
		if core != "" && (unicode.IsUpper(r) && k > 0 || unicode.IsDigit(r)) {
			run = append(run, core)
		} else {
			flush()
		}
		if core != w && strings.ContainsAny(w, ",;:()\".") {
			flush()
		}
	}
	flush()
	return out
}

// belief is what the model thinks: answer candidates, the considered one
// first, and the lines of reasoning that lead to it.
type belief struct {
	answers []string
	lines   []string
}

// negations flip a yes/no reading.
var negations = map[string]bool{"not": true, "never": true, "no": true, "neither": true, "nor": true}

// consider forms the model's belief about a reading.
func consider(r reading) belief {
	switch {
	case len(r.choices) > 0:
		return considerChoices(r)
	case len(r.passages) > 0:
		return considerPassages(r)
	case r.arithmetic():
		m, _ := readProblem(r.question)
		ops, v := m.considered()
		k := 0
		steps, _ := m.chain(func(int) op { o := ops[k]; k++; return o })
		return belief{answers: []string{formatRat(v)}, lines: writeSteps(steps)}
	}
	// Closed book, no calculation: the model can only guess from the words
	// of the question.
	if yesNoQuestion(r.question) {
		return belief{answers: tasteOrder(r.question, []string{"yes", "no"}), lines: []string{"I recall what I know about this."}}
	}
	cands := spans(r.question, "")
	if len(cands) == 0 {
		cands = []string{"unknown"}
	}
	return belief{answers: tasteOrder(r.question, cands), lines: []string{"I recall what I know about this."}}
}

// tasteOrder is a fixed, meaningless preference among options: the
// model's prior when it has nothing to go on.
func tasteOrder(taste string, opts []string) []string {
	out := make([]string, len(opts))
	for i, k := range sim.Rank("guess:"+taste, opts) {
		out[i] = opts[k]
	}
	return out
}

func considerPassages(r reading) belief {
	order := rankSentences(r.question, r.passages)
	best := r.passages[order[0]]
	lines := []string{"From the passages: " + best}
	if yesNoQuestion(r.question) {
		want := contentWords(r.question)
		covered := float64(overlap(want, best)) / float64(max(1, len(want)))
		neg := false
		for _, w := range strings.Fields(hotpotqa.Normalize(best)) {
			neg = neg || negations[w]
		}
		if covered >= 0.5 && !neg {
			return belief{answers: []string{"yes", "no"}, lines: lines}
		}
		return belief{answers: []string{"no", "yes"}, lines: lines}
	}
	var cands []string
	for _, i := range order {
		for _, s := range spans(r.passages[i], r.question) {
			if !containsNorm(cands, s) {
				cands = append(cands, s)
			}
		}
	}
	if len(cands) == 0 {
		cands = []string{"unknown"}
	}
	return belief{answers: cands, lines: lines}
}

func considerChoices(r reading) belief {
	support := make([]int, len(r.choices))
	var lines []string
	switch {
	case len(r.passages) > 0:
		// A choice is supported by the passage sentence that best joins the
		// question's words with its own.
		want := contentWords(r.question)
		for i, c := range r.choices {
			cw := contentWords(c)
			for _, s := range r.passages {
				if n := overlap(cw, s); n > 0 {
					support[i] = max(support[i], overlap(want, s)+2*n)
				}
			}
		}
	case len(quantities(r.question)) >= 2:
		m, _ := readProblem(r.question)
		_, v := m.considered()
		for i, c := range r.choices {
			if cv, ok := lastNumber(c); ok && cv.Cmp(v) == 0 {
				support[i] = 1
			}
		}
		lines = append(lines, "Working it out gives "+formatRat(v)+".")
	}
	letters := make([]string, len(r.choices))
	for i := range r.choices {
		letters[i] = Letter(i)
	}
	order := tasteOrder(r.question, letters) // ties: a fixed prior
	for a := 1; a < len(order); a++ {
		for b := a; b > 0 && support[order[b][0]-'A'] > support[order[b-1][0]-'A']; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	lines = append(lines, "Choice "+order[0]+" fits best: "+r.choices[order[0][0]-'A']+".")
	return belief{answers: order, lines: lines}
}

func containsNorm(list []string, s string) bool {
	n := hotpotqa.Normalize(s)
	for _, x := range list {
		if hotpotqa.Normalize(x) == n {
			return true
		}
	}
	return false
}

// sameAnswer compares two answers as the model would: numbers by value,
// texts normalised.
func sameAnswer(a, b string) bool {
	if av, ok := lastNumber(a); ok {
		if bv, ok := lastNumber(b); ok {
			return av.Cmp(bv) == 0
		}
	}
	na, nb := hotpotqa.Normalize(a), hotpotqa.Normalize(b)
	return na != "" && na == nb
}

// answeredMarker begins the phrase in which a simulated critique quotes
// the answer it found wrong; later answers avoid what it quotes.
const answeredMarker = `I answered "`

// rejected lists the answers critiques in the prompt found wrong.
func rejected(p sim.Prompt) []string {
	var out []string
	for _, m := range p.Messages {
		if m.Role == "assistant" {
			continue
		}
		rest := m.Content
		for {
			i := strings.Index(rest, answeredMarker)
			if i < 0 {
				break
			}
			rest = rest[i+len(answeredMarker):]
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

func isRejected(ans string, rej []string) bool {
	for _, r := range rej {
		if sameAnswer(ans, r) {
			return true
		}
	}
	return false
}
