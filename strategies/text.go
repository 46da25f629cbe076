package strategies

import "github.com/reasonbench/reasonbench/strategies/action"

// clip and capText are the parsers' own (action.Clip, action.CapText):
// what a parser quotes of a reply is cut the way the strategies cut it.
func clip(s string, n int) string { return action.Clip(s, n) }

func capText(s string, n int) string { return action.CapText(s, n) }
