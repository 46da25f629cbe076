// Package creative is the Creative Writing task of the Tree of Thoughts
// paper (Yao et al. 2023): 100 inputs of four random sentences; the output
// is a coherent passage of four short paragraphs ending in them. A judge
// model scores coherency 1-10 (the mean of 5 judge samples, the paper's
// score), and an output is correct when its paragraphs end in the four
// sentences in order.
package creative

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/reasonbench/reasonbench/tasks"
)

// dataText is the ToT repository's data_100_random_text.txt, one input a
// line.
//
//go:embed data/data_100_random_text.txt
var dataText string

// NumInputs is the number of bundled inputs.
const NumInputs = 100

// inputs are the lines as the reference reads them: each keeps its
// trailing newline (the last has none).
var inputs = sync.OnceValue(func() []string { return strings.SplitAfter(strings.TrimSuffix(dataText, "\n"), "\n") })

// Task is Creative Writing as a benchmark task. A copy bound to a judge
// (WithJudge) scores coherency; unbound, only the paragraph endings.
type Task struct {
	judge *judging
}

// NewTask returns the task over the bundled inputs.
func NewTask() *Task { return &Task{} }

// Name is "creative".
func (*Task) Name() string { return "creative" }

// Instances returns the 100 inputs; Input is the line as read.
func (*Task) Instances() ([]tasks.Instance, error) {
	in := inputs()
	if len(in) != NumInputs {
		return nil, fmt.Errorf("creative data: %d inputs, want %d", len(in), NumInputs)
	}
	out := make([]tasks.Instance, len(in))
	for i, s := range in {
		out[i] = tasks.Instance{Index: i, Key: strings.TrimSpace(s), Input: s}
	}
	return out, nil
}

// Passage is what the reference scores: the text after the last
// "Passage:\n" (all of it when there is none).
func Passage(output string) string {
	if i := strings.LastIndex(output, "Passage:\n"); i >= 0 {
		return output[i+len("Passage:\n"):]
	}
	return output
}

// Paragraphs splits a passage at blank lines, dropping empty ones.
func Paragraphs(passage string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(passage, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// normalize folds whitespace runs to one space and curly quotes to straight
// ones, so an ending copied with other spacing or quotes still counts.
func normalize(s string) string {
	s = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201c", "\"", "\u201d", "\"").Replace(s)
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// EndsInInput reports whether the passage has four paragraphs whose
// endings, joined by spaces, are the input: the input split into four
// non-empty consecutive pieces, piece i ending paragraph i.
func EndsInInput(input, passage string) bool {
	ps := Paragraphs(passage)
	if len(ps) != 4 {
		return false
	}
	for i := range ps {
		ps[i] = normalize(ps[i])
	}
	words := strings.Fields(normalize(input))
	// fit: can words[:n] be split so that piece j ends paragraph j, j < k?
	var fit func(k, n int) bool
	fit = func(k, n int) bool {
		if k == 0 {
			return n == 0
		}
		for start := n - 1; start >= k-1; start-- {
			piece := strings.Join(words[start:n], " ")
			p := ps[k-1]
			if p == piece || strings.HasSuffix(p, " "+piece) {
				if fit(k-1, start) {
					return true
				}
			}
		}
		return false
	}
	return fit(4, len(words))
}

// Score checks the paragraph endings; bound to a judge, it also asks for
// the coherency score (metric coherency, the paper's figure).
func (t *Task) Score(inst tasks.Instance, output string) tasks.Score {
	ok := EndsInInput(inst.Input, Passage(output))
	sc := tasks.Score{Correct: ok, Metrics: map[string]float64{"constraint": b2f(ok)}}
	if !ok {
		sc.Reason = "the passage is not four paragraphs ending in the four sentences"
	}
	if t.judge != nil {
		if c, ok := t.judge.score(output); ok {
			sc.Metrics["coherency"] = c
		}
	}
	return sc
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// VoteKeys: "passage", the normalised passage.
func (*Task) VoteKeys() []string { return []string{"passage"} }

// AnswerKey is the normalised passage.
func (*Task) AnswerKey(_ tasks.Instance, output, key string) (string, bool) {
	p := normalize(Passage(output))
	return p, key == "passage" && p != ""
}

// ScoringRule describes the rule.
func (*Task) ScoringRule() string {
	return "creative/coherency: correct when the passage (after the last 'Passage:') has four paragraphs ending in the four sentences; coherency is the mean 1-10 score of 5 judge samples (the reference's score prompt and reading)"
}

var dataHash = sync.OnceValue(func() string { return tasks.SHA256([]byte(dataText)) })

// Dataset names the embedded inputs by their digest.
func (*Task) Dataset() tasks.Dataset {
	return tasks.Dataset{Name: "creative", SHA256: dataHash(), Rows: NumInputs}
}

var (
	_ tasks.RuleNamer    = (*Task)(nil)
	_ tasks.DataSource   = (*Task)(nil)
	_ tasks.ThoughtSpace = (*Task)(nil)
	_ tasks.Judged       = (*Task)(nil)
)
