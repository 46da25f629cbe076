// Package qa is the generic question-answer task: rows with a question, a
// gold answer and optionally reading context and multiple choices, read from
// a JSONL or CSV file (file.go, spec.go) or bundled (GSM8K); scored by a
// named scorer (scorer.go: exact, em_f1, numeric, choice, regex); offering
// every strategy that works on plain questions (the thought space in
// thoughts.go, a docstore and tools in tools.go when there is context); and
// answered honestly by the simulated model (simulator/qa), which reads only what
// the prompt shows.
package qa

import (
	"fmt"
	"strings"
)

// Paragraph is one piece of a row's reading context. Title may be "".
type Paragraph struct {
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
}

// Row is one question.
type Row struct {
	// Line is where the row starts in its file (1-based; CSV counts the
	// header); 0 for bundled data.
	Line     int
	ID       string
	Question string
	// Answers are the gold answers: one, or several accepted aliases.
	Answers []string
	Context []Paragraph
	Choices []string
}

// Gold is the first gold answer, or "".
func (r Row) Gold() string {
	if len(r.Answers) == 0 {
		return ""
	}
	return r.Answers[0]
}

// maxChoices is the number of letters.
const maxChoices = 26

// Letter is the label of choice i: A, B, ...
func Letter(i int) string { return string(rune('A' + i)) }

// Input is the question as prompts show it: the question, then the
// choices one per line as "A. text".
func (r Row) Input() string {
	if len(r.Choices) == 0 {
		return r.Question
	}
	var b strings.Builder
	b.WriteString(r.Question)
	for i, c := range r.Choices {
		fmt.Fprintf(&b, "\n%s. %s", Letter(i), c)
	}
	return b.String()
}

// renderContext writes the paragraphs as prompts show them: "Title: text"
// (or the text alone when untitled), a blank line between paragraphs.
func renderContext(paras []Paragraph) string {
	var b strings.Builder
	for i, p := range paras {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if p.Title != "" {
			b.WriteString(p.Title)
			b.WriteString(": ")
		}
		b.WriteString(strings.TrimSpace(p.Text))
	}
	return b.String()
}

// pageTitle is the docstore title of paragraph i: its own, or
// "Paragraph N" (1-based) when untitled.
func pageTitle(paras []Paragraph, i int) string {
	if paras[i].Title != "" {
		return paras[i].Title
	}
	return fmt.Sprintf("Paragraph %d", i+1)
}
