// Package hotpotqa provides the HotpotQA task for the reasoning-strategy harness:
// the 100-question distractor sample used by Reflexion (embedded), official-style
// answer scoring (hotpot_evaluate_v1.py / SQuAD normalisation, exact match and F1),
// extraction of a final answer from model output, and a local docstore that serves
// a question's own context paragraphs to a ReAct agent through Search/Lookup.
//
// Model output is treated as hostile input: no exported function panics on any
// string, including invalid UTF-8 and very long inputs.
//
// The embedded data is derived from HotpotQA (Yang et al., 2018) and is licensed
// CC BY-SA 4.0; see data/README.md.
package hotpotqa

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

//go:embed data/hotpot_distractor_sample100.jsonl
var sample100 []byte

// Paragraph is one context paragraph: a Wikipedia title and its sentences.
// Sentences are kept exactly as stored, including leading spaces, so joining
// them with "" gives the original paragraph text.
type Paragraph struct {
	Title     string
	Sentences []string
}

// Text returns the paragraph text: the sentences joined with "".
func (p Paragraph) Text() string { return strings.Join(p.Sentences, "") }

// SupportingFact points to a sentence annotators marked as needed for the answer:
// the paragraph Title and the 0-based Sentence index within that paragraph.
type SupportingFact struct {
	Title    string
	Sentence int
}

// Question is one HotpotQA question in the distractor setting.
type Question struct {
	// Index is the 0-based row position in the embedded sample file (0..99).
	Index           int
	ID              string
	Question        string // exactly as stored (may contain odd spacing)
	Answer          string
	Type            string // "bridge" or "comparison"
	Level           string // "hard" for every row of the sample
	SupportingFacts []SupportingFact
	Context         []Paragraph // 10 paragraphs: gold plus distractors
}

// Gold returns the paragraphs whose title appears in SupportingFacts, in context
// order, each at most once.
func (q Question) Gold() []Paragraph {
	want := make(map[string]bool, len(q.SupportingFacts))
	for _, sf := range q.SupportingFacts {
		want[sf.Title] = true
	}
	var out []Paragraph
	for _, p := range q.Context {
		if want[p.Title] {
			out = append(out, p)
			delete(want, p.Title) // a duplicated title is returned once
		}
	}
	return out
}

// SupportingParagraphs is the context the Reflexion reference's CoT
// notebooks give the agent: for every supporting fact in order, the text
// of the first paragraph with its title (sentences joined as stored, not
// trimmed), joined by a blank line. A paragraph holding several facts
// appears once per fact, as it does there.
func (q Question) SupportingParagraphs() string {
	var texts []string
	for _, sf := range q.SupportingFacts {
		if p, ok := paragraph(q, sf.Title); ok {
			texts = append(texts, p.Text())
		}
	}
	return strings.Join(texts, "\n\n")
}

// paragraph is the first paragraph of q titled title.
func paragraph(q Question, title string) (Paragraph, bool) {
	for _, p := range q.Context {
		if p.Title == title {
			return p, true
		}
	}
	return Paragraph{}, false
}

var loadQuestions = sync.OnceValues(func() ([]Question, error) {
	return parseJSONL(sample100)
})

// SetQuestionsForTesting makes every reader of the bundled sample (Questions,
// the task, FindQuestion) see qs until restore is called. It exists for the
// simulator's honesty test in another package (simulator/hotpotqa), which
// redacts the answers and supporting facts and checks that the simulated
// model's outputs do not change; the simulator's source test forbids the
// responders to call it. Not safe for concurrent use.
func SetQuestionsForTesting(qs []Question) (restore func()) {
	orig := loadQuestions
	loadQuestions = func() ([]Question, error) { return qs, nil }
	return func() { loadQuestions = orig }
}

// Questions returns the 100 questions of the embedded sample, in file order.
// The file is parsed once; each call returns a fresh deep copy of the slices,
// so callers may modify the result freely.
func Questions() ([]Question, error) {
	qs, err := loadQuestions()
	if err != nil {
		return nil, err
	}
	out := make([]Question, len(qs))
	for i, q := range qs {
		q.SupportingFacts = append([]SupportingFact(nil), q.SupportingFacts...)
		ctx := make([]Paragraph, len(q.Context))
		for j, p := range q.Context {
			ctx[j] = Paragraph{Title: p.Title, Sentences: append([]string(nil), p.Sentences...)}
		}
		q.Context = ctx
		out[i] = q
	}
	return out, nil
}

type rawQuestion struct {
	ID              string              `json:"id"`
	Question        string              `json:"question"`
	Answer          string              `json:"answer"`
	Type            string              `json:"type"`
	Level           string              `json:"level"`
	SupportingFacts [][]json.RawMessage `json:"supporting_facts"`
	Context         [][]json.RawMessage `json:"context"`
}

// parseJSONL parses rows in the format of hotpot_distractor_sample100.jsonl.
// Blank lines are skipped.
func parseJSONL(data []byte) ([]Question, error) {
	var out []Question
	for n, line := range bytes.Split(data, []byte("\n")) {
		lineNo := n + 1
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r rawQuestion
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("hotpotqa: line %d: %w", lineNo, err)
		}
		q := Question{
			Index:    len(out),
			ID:       r.ID,
			Question: r.Question,
			Answer:   r.Answer,
			Type:     r.Type,
			Level:    r.Level,
		}
		for i, pair := range r.SupportingFacts {
			if len(pair) != 2 {
				return nil, fmt.Errorf("hotpotqa: line %d: supporting_facts[%d]: want [title, sent_idx], got %d elements", lineNo, i, len(pair))
			}
			var sf SupportingFact
			if err := json.Unmarshal(pair[0], &sf.Title); err != nil {
				return nil, fmt.Errorf("hotpotqa: line %d: supporting_facts[%d] title: %w", lineNo, i, err)
			}
			if err := json.Unmarshal(pair[1], &sf.Sentence); err != nil {
				return nil, fmt.Errorf("hotpotqa: line %d: supporting_facts[%d] sentence index: %w", lineNo, i, err)
			}
			q.SupportingFacts = append(q.SupportingFacts, sf)
		}
		for i, pair := range r.Context {
			if len(pair) != 2 {
				return nil, fmt.Errorf("hotpotqa: line %d: context[%d]: want [title, [sentences]], got %d elements", lineNo, i, len(pair))
			}
			var p Paragraph
			if err := json.Unmarshal(pair[0], &p.Title); err != nil {
				return nil, fmt.Errorf("hotpotqa: line %d: context[%d] title: %w", lineNo, i, err)
			}
			if err := json.Unmarshal(pair[1], &p.Sentences); err != nil {
				return nil, fmt.Errorf("hotpotqa: line %d: context[%d] sentences: %w", lineNo, i, err)
			}
			q.Context = append(q.Context, p)
		}
		out = append(out, q)
	}
	return out, nil
}
