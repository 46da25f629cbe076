package hotpotqa

import "github.com/reasonbench/reasonbench/tasks/squad"

// Normalize is the official normalize_answer (squad.Normalize): lower case,
// ASCII punctuation and the articles a, an, the removed, whitespace
// collapsed.
func Normalize(s string) string { return squad.Normalize(s) }

// ExactMatch reports whether pred and gold are equal after Normalize
// (squad.ExactMatch).
func ExactMatch(pred, gold string) bool { return squad.ExactMatch(pred, gold) }

// F1 is the official token-level F1, precision and recall (squad.F1).
func F1(pred, gold string) (f1, precision, recall float64) { return squad.F1(pred, gold) }
