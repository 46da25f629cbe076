package qa

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// Task is a question-answer task over rows, scored by a Scorer. Tasks
// whose rows have context are made by New as a *ContextTask, which adds
// the context renderer and the docstore tools.
type Task struct {
	name    string
	kind    string   // rule prefix: "file", "gsm8k"
	folders []string // template folders, e.g. ["gsm8k", "qa"]
	rows    []Row
	scorer  Scorer
	opts    ScorerOptions
	rules   []string // scorer names WithRule accepts, the default first
	steps   int
	data    tasks.Dataset
	prompts string // a prompts folder the spec names, or ""
	source  string // the data file as the user named it, for errors
}

// defaultSteps is the thought space's depth without a spec: two lines of
// reasoning and the answer.
const defaultSteps = 3

// Options build a Task.
type Options struct {
	Name    string   // the task's name as runs record it
	Kind    string   // the scoring rule's prefix ("file", "gsm8k")
	Folders []string // template folders, most specific first; default ["qa"]
	Rows    []Row
	Scorer  string        // scorer name (with an optional :option)
	Opts    ScorerOptions // scorer options
	// Rules are the scorers --rule/--scorer may choose; nil allows all.
	Rules   []string
	Steps   int // thought steps (0: 3)
	Data    tasks.Dataset
	Prompts string
	Source  string // the data file as the user named it, for errors ("" for bundled data)
}

// New builds the task, checking every row's gold answer against the
// scorer (errors name the row's line). It is a *ContextTask when any row
// has context.
func New(o Options) (tasks.Task, error) {
	if len(o.Rows) == 0 {
		return nil, errors.New("no rows")
	}
	t := &Task{name: o.Name, kind: o.Kind, folders: o.Folders, rows: o.Rows, opts: o.Opts, rules: o.Rules,
		steps: o.Steps, data: o.Data, prompts: o.Prompts, source: o.Source}
	if len(t.folders) == 0 {
		t.folders = []string{"qa"}
	}
	if t.steps == 0 {
		t.steps = defaultSteps
	}
	if t.rules == nil {
		t.rules = Scorers()
	}
	name := o.Scorer
	if name == "" {
		name = t.rules[0]
	}
	if err := t.setScorer(name); err != nil {
		return nil, err
	}
	for _, r := range t.rows {
		if len(r.Context) > 0 {
			return &ContextTask{t}, nil
		}
	}
	return t, nil
}

// setScorer makes name the scorer and checks every row against it.
func (t *Task) setScorer(name string) error {
	base, _, _ := strings.Cut(name, ":")
	if !slices.Contains(t.rules, base) {
		if _, err := NewScorer(name, t.opts); err != nil {
			return err
		}
		return fmt.Errorf("scorer %s: task %s is scored by %s; drop --scorer, or pass that one", name, t.name, strings.Join(t.rules, " or "))
	}
	s, err := NewScorer(name, t.opts)
	if err != nil {
		return err
	}
	for i, r := range t.rows {
		if err := s.Check(r); err != nil {
			where := t.data.Name
			if t.source != "" {
				where = t.source
			}
			if r.Line > 0 {
				where = fmt.Sprintf("%s:%d", where, r.Line)
			} else {
				where = fmt.Sprintf("%s row %d", where, i)
			}
			return fmt.Errorf("%s: %v", where, err)
		}
	}
	t.scorer = s
	return nil
}

// FileTaskName is how runs and tables name a file task: "file:", the
// data's name, "@" and the first 8 hex digits of its digest.
func FileTaskName(d tasks.Dataset) string { return "file:" + d.Name + "@" + d.Short() }

// NewFileTask builds the task over a loaded data file; scorer overrides
// the spec's ("" keeps it). Without either, rows with choices are scored
// by choice and others by em_f1.
func NewFileTask(d *Data, scorer string) (tasks.Task, error) {
	if scorer == "" {
		scorer = d.Spec.Scorer
	}
	if scorer == "" {
		scorer = ScorerEMF1
		if len(d.Rows[0].Choices) > 0 {
			scorer = ScorerChoice
		}
	}
	base, _, _ := strings.Cut(scorer, ":")
	return New(Options{Name: FileTaskName(d.Info), Kind: "file", Rows: d.Rows, Scorer: scorer, Opts: d.Spec.options(),
		Rules: uniq(append([]string{base}, Scorers()...)), Steps: d.Spec.Steps, Data: d.Info, Prompts: d.PromptDir(), Source: d.source})
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Name is the task's name ("file:qa.jsonl@1a2b3c4d", "gsm8k").
func (t *Task) Name() string { return t.name }

// Rows returns the task's rows (not to be modified).
func (t *Task) Rows() []Row { return t.rows }

// Scorer is the task's scorer.
func (t *Task) Scorer() Scorer { return t.scorer }

// Instances returns the rows in order; Index is the row's position, Key
// its id (or question text), Input the question with its choices.
func (t *Task) Instances() ([]tasks.Instance, error) {
	out := make([]tasks.Instance, len(t.rows))
	for i, r := range t.rows {
		key := r.ID
		if key == "" {
			key = r.Question
		}
		out[i] = tasks.Instance{Index: i, Key: key, Input: r.Input(), Gold: r.Gold(), Data: r}
	}
	return out, nil
}

// rowOf is the row an instance carries; an instance made elsewhere gives
// a row with its gold only.
func rowOf(inst tasks.Instance) Row {
	if r, ok := inst.Data.(Row); ok {
		return r
	}
	r := Row{Question: inst.Input}
	if inst.Gold != "" {
		r.Answers = []string{inst.Gold}
	}
	return r
}

// Score extracts the answer with the scorer and compares it with the
// row's gold answers.
func (t *Task) Score(inst tasks.Instance, output string) tasks.Score {
	return scoreOutput(t.scorer, rowOf(inst), output)
}

func scoreOutput(s Scorer, row Row, output string) tasks.Score {
	ans, ok := s.Answer(output)
	fallback := false
	if f, isF := s.(interface {
		answerFrom(string) (string, bool, bool)
	}); isF {
		ans, fallback, ok = f.answerFrom(output)
	}
	if !ok {
		sc := s.Score(row, "")
		for k := range sc.Metrics {
			sc.Metrics[k] = 0
		}
		return tasks.Score{Reason: "no answer found", Metrics: sc.Metrics}
	}
	sc := s.Score(row, ans)
	if fallback {
		sc.Answer += FallbackNote // the item's answer says how it was found
	}
	return sc
}

// VoteAnswer is the one vote key: the scorer's normalised answer.
const VoteAnswer = "answer"

// VoteKeys lists "answer".
func (*Task) VoteKeys() []string { return []string{VoteAnswer} }

// AnswerKey is the scorer's normalised answer (numeric: the number in
// lowest terms; choice: the letter; exact: the normalised text).
func (t *Task) AnswerKey(inst tasks.Instance, output, key string) (string, bool) {
	if key != VoteAnswer {
		return "", false
	}
	ans, ok := t.scorer.Answer(output)
	if !ok {
		return "", false
	}
	return t.scorer.Key(rowOf(inst), ans)
}

// ScoringRule is "<kind>/<scorer>: <description>".
func (t *Task) ScoringRule() string {
	return t.kind + "/" + t.scorer.Name() + ": " + t.scorer.Describe()
}

// Rules lists the scorers --scorer (or --rule) may choose, the default
// first.
func (t *Task) Rules() []string { return t.rules }

// WithRule returns the task scored by the named scorer.
func (t *Task) WithRule(name string) (tasks.Task, error) {
	c := *t
	if err := c.setScorer(name); err != nil {
		return nil, err
	}
	return &c, nil
}

// TemplateFolders lists the task's template folders.
func (t *Task) TemplateFolders() []string { return t.folders }

// Dataset names the task's data.
func (t *Task) Dataset() tasks.Dataset { return t.data }

// PromptDir is the prompts folder the task's spec names, or "".
func (t *Task) PromptDir() string { return t.prompts }

// ScoreRecord scores one `bench score` line: {"question", "output"} (or
// "prediction", the answer itself), the gold answer found by the question
// text (or "id", or with neither the row index "idx") among the task's
// rows, or given as "answer" (which wins). A record may give "choices" for
// a question not among the rows.
func (t *Task) ScoreRecord(rec map[string]any) (tasks.Score, error) {
	row, found, err := t.findRecord(rec)
	if err != nil {
		return tasks.Score{}, err
	}
	if v, ok := rec["answer"]; ok {
		switch a := v.(type) {
		case string:
			row.Answers = []string{a}
		case float64:
			row.Answers = []string{fmt.Sprint(a)}
		default:
			return tasks.Score{}, errors.New(`"answer" must be text or a number`)
		}
	} else if !found {
		return tasks.Score{}, fmt.Errorf(`question not among %s's %d rows; give the gold answer as "answer"`, t.name, len(t.rows))
	}
	if v, ok := rec["choices"].([]any); ok && len(row.Choices) == 0 {
		for _, c := range v {
			s, _ := c.(string)
			row.Choices = append(row.Choices, s)
		}
	}
	if p, ok := rec["prediction"]; ok {
		s, isText := p.(string)
		if !isText {
			return tasks.Score{}, errors.New(`"prediction" must be text`)
		}
		return t.scorer.Score(row, s), nil
	}
	out, ok := rec["output"].(string)
	if !ok {
		return tasks.Score{}, errors.New(`want an "output" (or "prediction") text field`)
	}
	return scoreOutput(t.scorer, row, out), nil
}

// findRecord finds the row a record names by "id" or "question"
// (whitespace-insensitive), or, when it has neither, by "idx": the row
// index, as samples of one problem are grouped ({idx, output,
// verifier_score}). A bad idx is an error unless the record gives the
// gold "answer".
func (t *Task) findRecord(rec map[string]any) (Row, bool, error) {
	if id, ok := rec["id"].(string); ok && id != "" {
		for _, r := range t.rows {
			if r.ID == id {
				return r, true, nil
			}
		}
	}
	if q, ok := rec["question"].(string); ok && q != "" {
		r, found := t.FindQuestion(q)
		return r, found, nil
	}
	_, hasID := rec["id"]
	if v, ok := rec["idx"]; ok && !hasID {
		if i, isNum := v.(float64); isNum && i == float64(int(i)) && int(i) >= 0 && int(i) < len(t.rows) {
			return t.rows[int(i)], true, nil
		}
		if _, hasAnswer := rec["answer"]; !hasAnswer {
			return Row{}, false, fmt.Errorf(`"idx" %v is not a row index 0-%d of %s`, v, len(t.rows)-1, t.name)
		}
	}
	return Row{}, false, nil
}

// FindQuestion returns the row whose question equals text up to
// whitespace.
func (t *Task) FindQuestion(text string) (Row, bool) {
	key := squash(text)
	for _, r := range t.rows {
		if squash(r.Question) == key {
			return r, true
		}
	}
	return Row{}, false
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// ContextTask is a Task whose rows have reading context: prompts can show
// it (context=gold) and ReAct and LATS search it as a docstore.
type ContextTask struct{ *Task }

// Context modes.
const (
	ContextGold = "gold" // the row's context, every paragraph
	ContextNone = "none" // closed-book
)

// Contexts lists gold (the default) and none.
func (*ContextTask) Contexts() []string { return []string{ContextGold, ContextNone} }

// RenderContext writes the row's paragraphs for gold, nothing for none.
func (*ContextTask) RenderContext(inst tasks.Instance, mode string) (string, error) {
	switch mode {
	case ContextGold:
		return renderContext(rowOf(inst).Context), nil
	case ContextNone:
		return "", nil
	}
	return "", fmt.Errorf("unknown context %q (want gold or none)", mode)
}

// WithRule keeps the context capabilities.
func (t *ContextTask) WithRule(name string) (tasks.Task, error) {
	c, err := t.Task.WithRule(name)
	if err != nil {
		return nil, err
	}
	return &ContextTask{c.(*Task)}, nil
}

var (
	_ tasks.Task            = (*Task)(nil)
	_ tasks.RecordScorer    = (*Task)(nil)
	_ tasks.RuleNamer       = (*Task)(nil)
	_ tasks.RuleChooser     = (*Task)(nil)
	_ tasks.TemplateFolders = (*Task)(nil)
	_ tasks.DataSource      = (*Task)(nil)
	_ tasks.ContextRenderer = (*ContextTask)(nil)
	_ tasks.Toolbox         = (*ContextTask)(nil)
)
