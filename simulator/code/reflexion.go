// This file answers the Reflexion programming protocol's prompts
// (strategy reflexion_code), recognised by its templates' markers, from
// the prompt alone, with small skills of its own: the tests are the
// docstring's ">>> f(x)" examples written as asserts; a function answers
// the inputs it has seen (the examples, and the failing asserts the
// feedback shows it) from a table and otherwise returns the declared
// return type's zero value; a reflection names the failing cases. Noise
// is declared: each case is overlooked with probability Slip.
// (The code tasks' coder, coder.go, has the same skills over the io and
// cot prompts; the two share Zero. Reading a signature stays apart: this
// reader takes the last def of a conversation, ParseFunction a task's.)

package code

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the reflexion_code templates (prompts/mbpp, prompts/humaneval,
// reflexion_code_*): the system instructions' first sentences.
const (
	MarkerRCTests   = "You write Python unit tests."
	MarkerRCCode    = "You complete Python functions"
	MarkerRCReflect = "You review Python functions."
	markerWhole     = "signature included" // the current version wants whole functions
)

// ReflexionResponder answers reflexion_code's calls.
type ReflexionResponder struct{}

// Respond implements sim.Responder.
func (ReflexionResponder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	system := p.Last("system")
	user := p.Last("user")
	switch {
	case strings.HasPrefix(system, MarkerRCTests):
		fn, ok := rcParse(user)
		if !ok || len(fn.cases) == 0 {
			return llm.Choice{Content: "The docstring shows no examples to test."}, true
		}
		var b strings.Builder
		for _, c := range fn.cases {
			fmt.Fprintf(&b, "assert %s(%s) == %s\n", fn.name, c.args, c.result)
		}
		return llm.Choice{Content: b.String()}, true
	case strings.HasPrefix(system, MarkerRCReflect):
		var b strings.Builder
		failed := rcFailed(user)
		if len(failed) == 0 {
			return llm.Choice{Content: "The implementation fails its tests; it does not handle the inputs the tests use."}, true
		}
		for _, f := range failed {
			fmt.Fprintf(&b, "For (%s) the implementation returns %s, but the test expects %s. ", f.args, f.got, f.result)
		}
		b.WriteString("The function must return the expected values for these inputs.")
		return llm.Choice{Content: b.String()}, true
	case strings.HasPrefix(system, MarkerRCCode):
		// The signature is the prompt: the last user turn of either version
		// ends with it.
		fn, ok := rcParse(user)
		if !ok {
			return llm.Choice{Content: "pass"}, true
		}
		cases := fn.cases
		for _, m := range p.Messages {
			if m.Role == "user" {
				for _, f := range rcFailed(m.Content) {
					if f.name == fn.name { // not the examples' functions
						cases = append(cases, f)
					}
				}
			}
		}
		body := rcBody(fn, cases, rng, params)
		if strings.Contains(system, markerWhole) {
			return llm.Choice{Content: "```python\n" + fn.header + "\n" + body + "\n```"}, true
		}
		return llm.Choice{Content: body}, true
	}
	return llm.Choice{}, false
}

type rcCase struct{ name, args, result, got string }

type rcFunc struct {
	name, header, ret string
	params            []string
	cases             []rcCase
}

var (
	rcDef     = regexp.MustCompile(`(?m)^def\s+([A-Za-z_]\w*)\s*\((.*)\)\s*(?:->\s*(.+?))?\s*:\s*$`)
	rcExample = regexp.MustCompile(`(?m)^\s*>>>\s*([A-Za-z_]\w*)\((.*)\)\s*\n\s*(\S.*?)\s*$`)
	rcFailure = regexp.MustCompile(`(?m)^assert\s+([A-Za-z_]\w*)\((.*)\)\s*==\s*(.+?)\s+# output: (.*)$`)
	rcImport  = regexp.MustCompile(`(?m)^(?:from\s+\S+\s+import\s+.+|import\s+.+)$`)
)

// rcParse reads the last function signature of text and its examples.
func rcParse(text string) (rcFunc, bool) {
	ms := rcDef.FindAllStringSubmatchIndex(text, -1)
	if len(ms) == 0 {
		return rcFunc{}, false
	}
	m := ms[len(ms)-1]
	fn := rcFunc{name: text[m[2]:m[3]], header: strings.TrimSpace(text[m[0]:m[1]])}
	if imps := rcImport.FindAllString(text[:m[0]], -1); len(imps) > 0 {
		fn.header = strings.Join(imps, "\n") + "\n" + fn.header
	}
	if m[6] >= 0 {
		fn.ret = strings.TrimSpace(text[m[6]:m[7]])
	}
	for _, p := range strings.Split(text[m[4]:m[5]], ",") {
		name, _, _ := strings.Cut(p, ":")
		if name = strings.TrimSpace(name); name != "" && !strings.ContainsAny(name, "*=[]") {
			fn.params = append(fn.params, name)
		}
	}
	for _, e := range rcExample.FindAllStringSubmatch(text[m[1]:], -1) {
		if e[1] == fn.name {
			fn.cases = append(fn.cases, rcCase{args: e[2], result: e[3]})
		}
	}
	return fn, true
}

// rcFailed reads the failed asserts of execution feedback.
func rcFailed(text string) []rcCase {
	_, failed, ok := strings.Cut(text, "Tests failed:")
	if !ok {
		return nil
	}
	var out []rcCase
	for _, m := range rcFailure.FindAllStringSubmatch(failed, -1) {
		out = append(out, rcCase{name: m[1], args: m[2], result: m[3], got: m[4]})
	}
	return out
}

// rcBody is a table of the cases it has not overlooked, then the zero
// value, indented as a function body.
func rcBody(fn rcFunc, cases []rcCase, rng *rand.Rand, params sim.Params) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.args] || len(fn.params) == 0 || rng.Float64() < params.Slip {
			continue
		}
		seen[c.args] = true
		fmt.Fprintf(&b, "    if [%s] == [%s]:\n        return %s\n", strings.Join(fn.params, ", "), c.args, c.result)
	}
	b.WriteString("    return " + Zero(fn.ret))
	return b.String()
}
