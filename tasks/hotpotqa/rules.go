package hotpotqa

import "github.com/reasonbench/reasonbench/tasks"

// ScoringRule names the rule: HotpotQA's official evaluation script's exact
// match and F1 (normalize_answer: lower case, punctuation and articles
// removed, whitespace collapsed).
func (*Task) ScoringRule() string {
	return "hotpotqa/official-em-f1: the official HotpotQA script's exact match and token F1 after normalize_answer"
}

var _ tasks.RuleNamer = (*Task)(nil)
