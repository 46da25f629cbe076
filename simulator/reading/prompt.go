package reading

import (
	"strings"
)

// Sentence is one sentence a prompt shows, with what the model knows of
// its paragraph.
type Sentence struct {
	Title string // the paragraph's or page's title, when the prompt gives one
	Lead  string // the paragraph's first sentence (who or what it is about)
	Text  string
}

// about is what the sentence is about besides its own words: its title,
// else its paragraph's first sentence.
func (s Sentence) about() string {
	if s.Title != "" {
		return s.Title
	}
	if s.Lead != s.Text {
		return s.Lead
	}
	return ""
}

// Reading is what the model takes from a prompt.
type Reading struct {
	Question string
	Choices  []string   // lettered choices ("A. text") under the question
	Passages []Sentence // shown with the question, or observed in a trajectory
}

// MaxPrompt bounds how much of a prompt the simulator reads (the end of
// it, where the question is).
const MaxPrompt = 256 << 10

// stopLabels end the question block of a prompt.
var stopLabels = []string{"Reasoning so far:", "Choice ", "Attempt", "Proposed answer:", "Final answer:", "Thought",
	"Action", "Observation", "Feedback", "Next line:", "Passages:", "Context:", "Answer:", "Trial:", "{", "(end of", "(END"}

// ReadQuestion finds the last "Question:" block: the question, then its
// lettered choices ("A. text").
func ReadQuestion(text string) (string, []string, bool) {
	if len(text) > MaxPrompt {
		text = text[len(text)-MaxPrompt:]
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

// passageLabels head the reading a prompt shows: the qa templates'
// "Passages:" (paragraphs separated by blank lines), HotpotQA's
// "Context:" (a paragraph a line, "Title: text", ending at a blank line),
// the Reflexion reference's "Relevant Context:" (paragraphs of text).
var passageLabels = []struct {
	label     string
	blankEnds bool
}{{"\nPassages:\n", false}, {"\nContext:\n", true}, {"Relevant Context:", false}}

// ReadPassages returns the sentences of the last passage block before the
// last question of text (few-shot examples come before it).
func ReadPassages(text string) []Sentence {
	if len(text) > MaxPrompt {
		text = text[len(text)-MaxPrompt:]
	}
	end := strings.LastIndex(text, "Question: ")
	if end < 0 {
		end = len(text)
	}
	head := text[:end]
	start, label, blankEnds := -1, "", false
	for _, l := range passageLabels {
		if i := strings.LastIndex(head, l.label); i > start {
			start, label, blankEnds = i, l.label, l.blankEnds
		}
	}
	if start < 0 {
		return nil
	}
	block := head[start+len(label):]
	if blankEnds {
		block, _, _ = strings.Cut(strings.TrimLeft(block, "\n"), "\n\n")
	}
	return paragraphs(block)
}

// paragraphs reads a block of paragraphs: separated by blank lines, and a
// new one at each line that starts with a title ("Title: text"). A line
// with a prompt's label (an attempt, feedback) ends the block.
func paragraphs(block string) []Sentence {
	var out []Sentence
	var title string
	var body []string
	flush := func() {
		text := strings.Join(body, "\n")
		lead := ""
		for _, s := range SentenceList(text) {
			if lead == "" {
				lead = s
			}
			out = append(out, Sentence{Title: title, Lead: lead, Text: s})
		}
		title, body = "", nil
	}
	for _, line := range strings.Split(block, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		if endsBlock(t) {
			break
		}
		if head, rest, ok := titled(t); ok {
			flush()
			title, t = head, rest
		}
		body = append(body, t)
	}
	flush()
	return out
}

// endsBlock tells a line that follows the passages in the templates: an
// attempt, its feedback, an earlier trial.
func endsBlock(line string) bool {
	for _, l := range []string{"Attempt", "Feedback on attempt", "Previous trial", "Proposed answer:", "Trial:", "Reflections:", "(END"} {
		if strings.HasPrefix(line, l) {
			return true
		}
	}
	return false
}

// titled splits "Title: text" when the head is short and not a sentence.
func titled(line string) (string, string, bool) {
	head, rest, ok := strings.Cut(line, ": ")
	if !ok || head == "" || len(head) > 100 || len(strings.Fields(head)) > 12 || strings.Contains(head, ". ") {
		return "", "", false
	}
	return head, rest, true
}

// Step is one action of a ReAct trajectory and what came back.
type Step struct {
	Action      string // search, lookup, finish, or "" when unreadable
	Input       string
	Observation string
}

// Failed tells a step that found nothing: an invalid action or a search
// with no page.
func (s Step) Failed() bool {
	return s.Action == "" || strings.HasPrefix(s.Observation, "Could not find") || strings.HasPrefix(s.Observation, "Invalid")
}

// Observed returns the facts the steps' observations show: the sentences
// of the pages searched (titled with the search) and of lookups.
func Observed(steps []Step) []Sentence {
	var out []Sentence
	page := ""
	for _, s := range steps {
		obs, title := CleanObservation(s.Observation)
		switch {
		case obs == "":
			continue
		case s.Action == "search" && title == "":
			page = strings.TrimSpace(s.Input)
		case title != "":
			page = title
		}
		lead := ""
		for _, t := range SentenceList(obs) {
			if lead == "" {
				lead = t
			}
			out = append(out, Sentence{Title: page, Lead: lead, Text: t})
		}
	}
	return out
}

// CleanObservation drops a docstore's framing from an observation and
// returns the facts it shows ("" for a message that shows none, such as a
// failed search), with the title of the page it names, if any.
func CleanObservation(obs string) (string, string) {
	obs = strings.TrimSpace(obs)
	for _, none := range []string{"Could not find", "Invalid", "No page searched", "Search needs", "Lookup needs",
		"Finish needs", "No more results", "Episode finished", "Answer is CORRECT", "Answer is INCORRECT"} {
		if strings.HasPrefix(obs, none) {
			return "", ""
		}
	}
	title := ""
	if strings.HasPrefix(obs, "No page is titled") {
		if i := strings.Index(obs, "; the closest page is "); i >= 0 {
			if t, body, ok := strings.Cut(obs[i+len("; the closest page is "):], ": "); ok {
				obs, title = body, t
			}
		}
	}
	if strings.HasPrefix(obs, "(Result ") {
		if _, body, ok := strings.Cut(obs, ") "); ok {
			obs = body
		}
	}
	return obs, title
}

// Similar returns the titles a failed search listed ("Could not find X.
// Similar: ['A', 'B']."), in order.
func Similar(obs string) []string {
	_, list, ok := strings.Cut(obs, "Similar: [")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "]")
	var out []string
	for _, item := range splitPyList(list) {
		if item != "" {
			out = append(out, item)
		}
	}
	return out
}

// splitPyList reads the items of a Python list of strings' repr.
func splitPyList(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), ",")) {
		q := s[0]
		if q != '\'' && q != '"' {
			item, rest, _ := strings.Cut(s, ",")
			out = append(out, strings.TrimSpace(item))
			s = rest
			continue
		}
		var b strings.Builder
		i := 1
		for ; i < len(s) && s[i] != q; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			b.WriteByte(s[i])
		}
		out = append(out, b.String())
		if i >= len(s) {
			break
		}
		s = s[i+1:]
	}
	return out
}
