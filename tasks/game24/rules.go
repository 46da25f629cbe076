package game24

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// Scoring rules. strict is ours: the last line starting "Answer:", every
// number exactly once, exact arithmetic. paper is the ToT reference's
// test_output: the last line of the output, lower-cased, with every
// "answer: " removed and cut at the first '='; its digit runs must be the
// puzzle's (as strings, in any order) and the expression must equal 24.
// The reference evaluates with sympy; we parse with our exact-rational
// parser instead (an expression it cannot parse scores 0, as sympy's errors
// do), which agrees on all 4100 published outputs.
const (
	RuleStrict = "strict"
	RulePaper  = "paper"
)

var ruleDocs = map[string]string{
	RuleStrict: "game24/strict: the last line starting 'Answer:'; each puzzle number exactly once; exact rational value 24",
	RulePaper:  "game24/paper: the ToT reference's test_output: the last line, optional 'answer: ' stripped; its digit runs are the puzzle's; value 24",
}

// Rules lists strict (the default) and paper.
func (*Task) Rules() []string { return []string{RuleStrict, RulePaper} }

// WithRule returns the task scored by the named rule.
func (*Task) WithRule(name string) (tasks.Task, error) {
	if _, ok := ruleDocs[name]; !ok {
		return nil, fmt.Errorf("game24 has no scoring rule %q (known: %s, %s)", name, RuleStrict, RulePaper)
	}
	return &Task{rule: name}, nil
}

// ScoringRule names the rule that scores this task's outputs.
func (t *Task) ScoringRule() string { return ruleDocs[t.ruleName()] }

func (t *Task) ruleName() string {
	if t == nil || t.rule == "" {
		return RuleStrict
	}
	return t.rule
}

var digitRun = regexp.MustCompile(`\d+`)

// CheckPaper scores an output as the ToT paper's scorer does (see above).
func CheckPaper(puzzle, output string) Verdict {
	s := pyStrip(output)
	last := s[strings.LastIndexByte(s, '\n')+1:]
	expr, _, _ := strings.Cut(strings.ReplaceAll(strings.ToLower(last), "answer: ", ""), "=")
	v := Verdict{Expression: strings.TrimSpace(expr)}
	got, want := digitRun.FindAllString(expr, -1), digitRun.FindAllString(puzzle, -1)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		v.Reason = fmt.Sprintf("numbers [%s] differ from puzzle [%s]", strings.Join(got, " "), strings.Join(want, " "))
		return v
	}
	e, err := ParseExpr(expr)
	if err != nil {
		v.Reason = "parse: " + err.Error()
		return v
	}
	if val := e.Value(); val == nil || val.Cmp(rat24) != 0 {
		v.Reason = fmt.Sprintf("value %s is not 24", FormatNumber(val))
		return v
	}
	v.Correct = true
	return v
}

var (
	_ tasks.RuleNamer   = (*Task)(nil)
	_ tasks.RuleChooser = (*Task)(nil)
)
