// This file answers the Self-Refine programming protocol's prompts
// (selfrefine protocol=code), recognised by its templates' first
// sentences, from the prompt alone: the first function is the coder's
// (WriteFunction); the review says "No change needed." when the example
// results the prompt shows report every example passed, and otherwise
// names the failing examples, each verdict turned around with probability
// Misjudge (declared noise); the improved function is the coder's with the
// failing examples the prompt shows as extra cases (CasesFromFeedback).

package code

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the selfrefine_code templates (prompts/humaneval, prompts/mbpp).
const (
	MarkerSRInit     = "Write a first version of the Python function below."
	MarkerSRFeedback = "Review the Python function below against what its docstring asks"
	MarkerSRRefine   = "Write the Python function below again, improved."
)

// SelfRefineResponder answers selfrefine protocol=code's calls.
type SelfRefineResponder struct{}

var srCount = regexp.MustCompile(`Examples passed: (\d+) of (\d+)\.`)

// Respond implements sim.Responder.
func (SelfRefineResponder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	switch {
	case strings.HasPrefix(text, MarkerSRInit):
		return llm.Choice{Content: "```python\n" + WriteFunction(text, nil, rng, params) + "```\n"}, true
	case strings.HasPrefix(text, MarkerSRFeedback):
		failing := srFailing(text)
		ok := srAllPassed(text)
		if rng.Float64() < params.Misjudge {
			ok = !ok
		}
		if ok {
			return llm.Choice{Content: "The function returns what the examples expect. No change needed."}, true
		}
		if len(failing) == 0 {
			return llm.Choice{Content: "The function does not do what the docstring asks; it should handle its inputs properly."}, true
		}
		var b strings.Builder
		b.WriteString("The function is wrong on these examples:\n")
		for _, l := range failing {
			b.WriteString(l + "\n")
		}
		b.WriteString("Change it so that it returns the expected values.")
		return llm.Choice{Content: b.String()}, true
	case strings.HasPrefix(text, MarkerSRRefine):
		f, ok := ParseFunction(text)
		if !ok {
			return llm.Choice{Content: "I cannot find the function to write."}, true
		}
		cases := CasesFromFeedback(strings.Join(srFailing(text), "\n"), f.Name)
		return llm.Choice{Content: "```python\n" + WriteFunction(text, cases, rng, params) + "```\n"}, true
	}
	return llm.Choice{}, false
}

// srAllPassed: the last count line shows every example passed, with
// nothing failing after it; a prompt without examples counts as passed
// when the function was defined without an error.
func srAllPassed(text string) bool {
	ms := srCount.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return strings.Contains(text, "The function was defined without an error.")
	}
	m := ms[len(ms)-1]
	k, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	return err1 == nil && err2 == nil && k == n
}

// srFailing are the example lines marked failed.
func srFailing(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "assert ") && strings.Contains(l, "# failed") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
