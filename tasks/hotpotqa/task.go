package hotpotqa

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// Task is HotpotQA (distractor setting) as a benchmark task: the 100 bundled
// questions, scored by exact match (Correct) and F1 (Metrics "em", "f1").
type Task struct {
	// NewDocstore builds the docstore a ReAct trajectory searches; nil means
	// a LocalDocstore over the question's own ten paragraphs. A
	// Wikipedia-backed store plugs in here.
	NewDocstore func(q Question) Docstore
}

// NewTask returns the task over the bundled questions with local docstores.
func NewTask() *Task { return &Task{} }

// Name is "hotpotqa".
func (*Task) Name() string { return "hotpotqa" }

// Instances returns the 100 questions in file order; Key is the HotpotQA
// id, Input the question text, Gold the answer.
func (*Task) Instances() ([]tasks.Instance, error) {
	qs, err := Questions()
	if err != nil {
		return nil, err
	}
	out := make([]tasks.Instance, len(qs))
	for i, q := range qs {
		out[i] = tasks.Instance{Index: q.Index, Key: q.ID, Input: q.Question, Gold: q.Answer, Data: q}
	}
	return out, nil
}

func goldOf(inst tasks.Instance) string {
	if inst.Gold != "" {
		return inst.Gold
	}
	if q, ok := inst.Data.(Question); ok {
		return q.Answer
	}
	return ""
}

// maxBareAnswer bounds an output taken as the answer when it has no Answer
// line or Finish action.
const maxBareAnswer = 300

// Answer extracts the answer from a model's output: ExtractAnswer's Answer
// line or Finish action, or else the whole output when it is a single
// short line (a bare "Paris"). ok is false when there is none.
func Answer(output string) (string, bool) {
	if ans, ok := ExtractAnswer(output); ok {
		return ans, true
	}
	s := strings.TrimSpace(output)
	if s == "" || len(s) > maxBareAnswer || strings.ContainsAny(s, "\r\n") {
		return "", false
	}
	if ans := cleanAnswer(s); ans != "" {
		return ans, true
	}
	return "", false
}

// Score extracts the answer (see Answer) and compares it with the gold
// answer: Correct is exact match; Metrics holds "em" (0 or 1) and "f1".
func (*Task) Score(inst tasks.Instance, output string) tasks.Score {
	ans, ok := Answer(output)
	if !ok {
		return tasks.Score{Reason: "no answer found", Metrics: map[string]float64{"em": 0, "f1": 0}}
	}
	return scoreAnswer(ans, goldOf(inst))
}

func scoreAnswer(ans, gold string) tasks.Score {
	em := ExactMatch(ans, gold)
	f1, _, _ := F1(ans, gold)
	sc := tasks.Score{Correct: em, Answer: ans, Metrics: map[string]float64{"em": b2f(em), "f1": f1}}
	if !em {
		sc.Reason = fmt.Sprintf("not an exact match for %q (F1 %.2f)", gold, f1)
	}
	return sc
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// VoteAnswer is the vote key: the normalised extracted answer.
const VoteAnswer = "answer"

// VoteKeys lists the one vote key, "answer".
func (*Task) VoteKeys() []string { return []string{VoteAnswer} }

// AnswerKey is Normalize of the extracted answer; an output whose answer
// normalises to "" (or has none) does not vote.
func (*Task) AnswerKey(_ tasks.Instance, output, key string) (string, bool) {
	if key != VoteAnswer {
		return "", false
	}
	ans, ok := Answer(output)
	if !ok {
		return "", false
	}
	n := Normalize(ans)
	return n, n != ""
}

// ScoreRecord scores one `bench score` line: {"question": .., "gold": ..,
// "prediction": ..}, or {"id": .., "prediction": ..} for a bundled question
// (its answer is the gold). The prediction is the answer itself, compared
// as hotpot_evaluate_v1.py does; a record may give "output" (model text)
// instead, from which the answer is extracted as in Score. "gold", when
// present, takes precedence over the bundled answer.
func (t *Task) ScoreRecord(rec map[string]any) (tasks.Score, error) {
	gold, hasGold := rec["gold"].(string)
	if _, present := rec["gold"]; present && !hasGold {
		return tasks.Score{}, errors.New(`"gold" must be text`)
	}
	if !hasGold {
		q, err := findRecordQuestion(rec)
		if err != nil {
			return tasks.Score{}, err
		}
		gold = q.Answer
	}
	if pred, ok := rec["prediction"]; ok {
		s, isText := pred.(string)
		if !isText {
			return tasks.Score{}, errors.New(`"prediction" must be text`)
		}
		return scoreAnswer(s, gold), nil
	}
	if out, ok := rec["output"].(string); ok {
		return t.Score(tasks.Instance{Gold: gold}, out), nil
	}
	return tasks.Score{}, errors.New(`want a "prediction" (or "output") text field`)
}

// findRecordQuestion finds the bundled question a record names by "id" or
// by its "question" text (whitespace-insensitive).
func findRecordQuestion(rec map[string]any) (Question, error) {
	qs, err := Questions()
	if err != nil {
		return Question{}, err
	}
	if id, ok := rec["id"].(string); ok && id != "" {
		for _, q := range qs {
			if q.ID == id {
				return q, nil
			}
		}
		return Question{}, fmt.Errorf("id %q is not a bundled question; give \"gold\"", truncateRunes(id, 100))
	}
	if text, ok := rec["question"].(string); ok && text != "" {
		if q, ok := FindQuestion(text); ok {
			return q, nil
		}
		return Question{}, fmt.Errorf(`question %q is not bundled; give "gold"`, truncateRunes(text, 100))
	}
	return Question{}, errors.New(`want "gold" (with "question"), or "id" of a bundled question`)
}

// FindQuestion returns the bundled question whose text equals text up to
// whitespace (runs of spaces collapse, ends trimmed).
func FindQuestion(text string) (Question, bool) {
	qs, err := Questions()
	if err != nil {
		return Question{}, false
	}
	key := squash(text)
	for _, q := range qs {
		if squash(q.Question) == key {
			return q, true
		}
	}
	return Question{}, false
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Context modes.
const (
	ContextGold       = "gold"       // the supporting paragraphs only (Reflexion's CoT with ground-truth context)
	ContextDistractor = "distractor" // all ten paragraphs, gold and distractors, in dataset order
	ContextNone       = "none"       // no paragraphs: closed-book
	// ContextSupporting is the context the Reflexion reference's CoT
	// notebooks build: the paragraph of every supporting fact, in the
	// facts' order (repeated when several facts are in one paragraph),
	// text only, a blank line between.
	ContextSupporting = "supporting"
)

// Contexts lists gold (the default), distractor, none and supporting.
func (*Task) Contexts() []string {
	return []string{ContextGold, ContextDistractor, ContextNone, ContextSupporting}
}

// RenderContext writes the paragraphs of mode, one per line as
// "Title: text".
func (*Task) RenderContext(inst tasks.Instance, mode string) (string, error) {
	q, ok := inst.Data.(Question)
	if !ok {
		return "", fmt.Errorf("hotpotqa: instance %d carries no question paragraphs", inst.Index)
	}
	var paras []Paragraph
	switch mode {
	case ContextGold:
		paras = q.Gold()
	case ContextDistractor:
		paras = q.Context
	case ContextNone:
		return "", nil
	case ContextSupporting:
		return q.SupportingParagraphs(), nil
	default:
		return "", fmt.Errorf("hotpotqa: unknown context %q (want gold, distractor, none or supporting)", mode)
	}
	return FormatParagraphs(paras), nil
}

// FormatParagraphs writes paragraphs as prompts show them: "Title: text",
// one per line.
func FormatParagraphs(paras []Paragraph) string {
	var b strings.Builder
	for i, p := range paras {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Title)
		b.WriteString(": ")
		b.WriteString(strings.TrimSpace(p.Text()))
	}
	return b.String()
}

var (
	_ tasks.Task            = (*Task)(nil)
	_ tasks.RecordScorer    = (*Task)(nil)
	_ tasks.ContextRenderer = (*Task)(nil)
	_ tasks.Toolbox         = (*Task)(nil)
)
