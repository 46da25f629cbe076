package tasks

import "strings"

// RuleNamer is implemented by tasks that say which scoring rule judged an
// output: a short stable name, then ": " and a description, e.g.
// "game24/strict: ...". Runs record it and tables show the name.
type RuleNamer interface {
	ScoringRule() string
}

// RuleChooser is implemented by tasks with more than one scoring rule.
type RuleChooser interface {
	// Rules lists the rule names WithRule accepts, the default first.
	Rules() []string
	// WithRule returns the task scored by the named rule.
	WithRule(name string) (Task, error)
}

// Rule returns the task's scoring rule with its description, or "".
func Rule(t Task) string {
	if r, ok := t.(RuleNamer); ok {
		return r.ScoringRule()
	}
	return ""
}

// RuleName is the short name of the task's scoring rule ("game24/paper"),
// or "".
func RuleName(t Task) string {
	name, _, _ := strings.Cut(Rule(t), ": ")
	return name
}

// ForgeableMark, in a rule's description, declares that under the rule a
// program being scored can forge its own verdict, and so other problems'
// (the code tasks' reference rule, docs/code-verdicts.md): every number
// scored by such a rule is shown marked.
const ForgeableMark = "FORGEABLE:"

// RuleForgeable reports whether a rule's description (Rule, or as a run
// recorded it) declares the rule forgeable.
func RuleForgeable(description string) bool { return strings.Contains(description, ForgeableMark) }
