// Package code is the simulated model's side of the programming tasks
// (HumanEval, MBPP, code file tasks): a coder that reads only the prompt.
//
// It does not solve problems. From the prompt it takes the function's
// signature and the examples its docstring shows (">>> f(x)" and the line
// after it, or "f(x) == y", "f(x) ➞ y", "f(x) => y"), and writes a
// function that answers those inputs from a table and otherwise returns
// the declared return type's zero value (0, "", False, [], ...). Its pass
// rate on the hidden tests is therefore low: an honest figure for a
// simulated coder, never tuned toward a target. The noise is declared:
//
//   - each example it saw is copied with its result replaced by the zero
//     value with probability Slip (a misread), and left out with
//     probability (1−Skill)/4 (overlooked);
//   - with probability Slip/5 the function has a syntax slip (the colon of
//     its def line is missing), so the program does not compile.
//
// A Reflexion-style responder reuses WriteFunction with the cases a
// failing assert showed it (CasesFromFeedback) and WriteTests for the
// internal tests a model writes from the docstring.
package code

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the bundled templates (prompts/humaneval, prompts/mbpp).
const (
	markerTask = "Write the Python function below in full."
	markerCoT  = "Think it through step by step first"
)

// Responder answers the io and cot prompts of the code tasks.
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	if !strings.Contains(text, markerTask) {
		return llm.Choice{}, false
	}
	sig, ok := ParseFunction(text)
	if !ok {
		return llm.Choice{Content: "I cannot find the function to write."}, true
	}
	code := WriteFunction(text, nil, rng, params)
	var b strings.Builder
	if strings.Contains(text, markerCoT) {
		fmt.Fprintf(&b, "The function %s takes %d argument(s).\n", sig.Name, len(sig.Params))
		if len(sig.Examples) == 0 {
			b.WriteString("The docstring shows no examples, so I return a default value.\n")
		}
		for _, c := range sig.Examples {
			fmt.Fprintf(&b, "For %s(%s) the answer is %s.\n", sig.Name, c.Args, c.Result)
		}
		b.WriteByte('\n')
	}
	b.WriteString("```python\n" + code + "```\n")
	return llm.Choice{Content: b.String()}, true
}

// Case is one input and its expected result, as Python source.
type Case struct {
	Args   string // "[1, 2], 3"
	Result string // "True"
}

// Function is what the coder reads of a prompt: the last top-level def
// (helpers the prompt defines come before the entry point).
type Function struct {
	Name     string
	DefLine  string   // the signature line as written
	Params   []string // parameter names; a *args or **kwargs leaves the table out
	Star     bool
	Return   string // the declared return type, "" if none
	Imports  []string
	Examples []Case
}

var (
	defRe    = regexp.MustCompile(`(?m)^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\((.*)\)\s*(?:->\s*(.+?))?\s*:\s*$`)
	importRe = regexp.MustCompile(`(?m)^(?:from\s+\S+\s+import\s+.+|import\s+.+)$`)
)

// ParseFunction reads the function to write from a prompt.
func ParseFunction(text string) (Function, bool) {
	ms := defRe.FindAllStringSubmatchIndex(text, -1)
	if len(ms) == 0 {
		return Function{}, false
	}
	m := ms[len(ms)-1]
	f := Function{Name: text[m[2]:m[3]], DefLine: strings.TrimRight(text[m[0]:m[1]], " \t")}
	if m[6] >= 0 {
		f.Return = strings.TrimSpace(text[m[6]:m[7]])
	}
	for _, p := range splitTop(text[m[4]:m[5]]) {
		p = strings.TrimSpace(p)
		if p == "" || p == "/" || p == "self" {
			continue
		}
		if strings.HasPrefix(p, "*") {
			f.Star = true
			continue
		}
		name, _, _ := strings.Cut(p, ":")
		name, _, _ = strings.Cut(name, "=")
		f.Params = append(f.Params, strings.TrimSpace(name))
	}
	f.Imports = importRe.FindAllString(text[:m[0]], -1)
	f.Examples = examples(f.Name, text[m[1]:])
	return f, true
}

// splitTop splits s at commas outside brackets and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case strings.ContainsRune("([{", r):
			depth++
		case strings.ContainsRune(")]}", r):
			depth--
		case r == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// balanced reports whether s closes every bracket and quote it opens.
func balanced(s string) bool {
	var stack []rune
	var quote rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case strings.ContainsRune("([{", r):
			stack = append(stack, r)
		case strings.ContainsRune(")]}", r):
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return quote == 0 && len(stack) == 0
}

// call finds "name(args)" at the start of s and returns args and the rest.
func call(s, name string) (args, rest string, ok bool) {
	s = strings.TrimSpace(s)
	after, found := strings.CutPrefix(s, name+"(")
	if !found {
		return "", "", false
	}
	depth := 1
	var quote rune
	for i, r := range after {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case r == ')' || r == ']' || r == '}':
			depth--
			if depth == 0 {
				return after[:i], after[i+1:], true
			}
		}
	}
	return "", "", false
}

var arrows = []string{"==>", "==", "➞", "=>", "->", "should return", "returns", "= "}

// literal is a result the coder will copy: balanced, one line, no
// trailing sentence.
func literal(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ",")
	if len(s) > 1 && strings.HasSuffix(s, ".") && !strings.ContainsAny(s[len(s)-2:len(s)-1], "0123456789") {
		s = s[:len(s)-1]
	}
	if s == "" || !pyLiteral(s) {
		return "", false
	}
	return s, true
}

var (
	pyString   = regexp.MustCompile(`'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"`)
	pyConst    = regexp.MustCompile(`\b(?:True|False|None)\b`)
	pyLiterals = regexp.MustCompile(`^[0-9\s.,:+\-()\[\]{}]*$`)
)

// pyLiteral reports whether s is made of Python literals only (numbers,
// strings, True/False/None, brackets): what the coder copies from a
// docstring. An expression ("19 - 5 - 6 = 8"), prose or a name is not.
func pyLiteral(s string) bool {
	if !balanced(s) || strings.Contains(s, "\n") {
		return false
	}
	rest := pyConst.ReplaceAllString(pyString.ReplaceAllString(s, "0"), "0")
	return pyLiterals.MatchString(rest) && !strings.Contains(rest, "=")
}

// keywordArg finds "name=value" at the top level of an argument list.
var keywordArg = regexp.MustCompile(`^\s*[A-Za-z_]\w*\s*=[^=]`)

// examples reads the docstring's examples of calls to name.
func examples(name, doc string) []Case {
	var out []Case
	seen := map[string]bool{}
	add := func(args, result string) {
		for _, a := range splitTop(args) {
			if keywordArg.MatchString(a) {
				return
			}
		}
		r, ok := literal(result)
		if !ok || !pyLiteral(args) || seen[args] {
			return
		}
		seen[args] = true
		out = append(out, Case{Args: strings.TrimSpace(args), Result: r})
	}
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if _, rest, ok := strings.Cut(l, ">>>"); ok {
			args, tail, ok := call(rest, name)
			if !ok || strings.TrimSpace(tail) != "" {
				continue
			}
			for j := i + 1; j < len(lines); j++ {
				next := strings.TrimSpace(lines[j])
				if next == "" || strings.HasPrefix(next, ">>>") {
					break
				}
				add(args, next)
				break
			}
			continue
		}
		// "f(x) == y", "f(x) ➞ y", ... anywhere on the line.
		for k := strings.Index(l, name+"("); k >= 0; {
			args, tail, ok := call(l[k:], name)
			if !ok {
				break
			}
			tail = strings.TrimSpace(tail)
			for _, a := range arrows {
				if r, ok := strings.CutPrefix(tail, a); ok {
					add(args, r)
					break
				}
			}
			next := strings.Index(l[k+1:], name+"(")
			if next < 0 {
				break
			}
			k += 1 + next
		}
	}
	return out
}

// Zero is the Python value the coder returns for inputs it has not seen:
// the declared return type's zero value, None when it declares none.
func Zero(ret string) string {
	t := strings.TrimSpace(ret)
	t = strings.TrimPrefix(t, "typing.")
	if strings.HasPrefix(t, "Optional[") || t == "None" || t == "" {
		return "None"
	}
	base, _, _ := strings.Cut(t, "[")
	switch strings.ToLower(base) {
	case "int":
		return "0"
	case "float":
		return "0.0"
	case "str":
		return "''"
	case "bool":
		return "False"
	case "list":
		return "[]"
	case "tuple":
		return "()"
	case "dict":
		return "{}"
	case "set":
		return "set()"
	}
	return "None"
}

// WriteFunction writes the coder's program for the function in prompt: a
// table of the docstring's examples and of extra (cases feedback showed
// it), then the zero value, with the declared noise of params.
func WriteFunction(prompt string, extra []Case, rng *rand.Rand, params sim.Params) string {
	f, ok := ParseFunction(prompt)
	if !ok {
		return "pass\n"
	}
	var b strings.Builder
	for _, imp := range f.Imports {
		b.WriteString(imp + "\n")
	}
	if len(f.Imports) > 0 {
		b.WriteByte('\n')
	}
	def := f.DefLine
	if rng.Float64() < params.Slip/5 {
		def = strings.TrimSuffix(def, ":") // a syntax slip
	}
	b.WriteString(def + "\n")
	zero := Zero(f.Return)
	cases := append(append([]Case(nil), f.Examples...), extra...)
	if !f.Star && len(f.Params) > 0 && len(cases) > 0 {
		fmt.Fprintf(&b, "    _args = (%s,)\n", strings.Join(f.Params, ", "))
		for _, c := range cases {
			if rng.Float64() < (1-params.Skill)/4 {
				continue // overlooked
			}
			result := c.Result
			if rng.Float64() < params.Slip {
				result = zero // misread
			}
			fmt.Fprintf(&b, "    if _args == (%s,):\n        return %s\n", c.Args, result)
		}
	}
	fmt.Fprintf(&b, "    return %s\n", zero)
	return b.String()
}

// WriteTests are the asserts a model writes from the docstring's examples
// (Reflexion's internal tests): "assert f(x) == y".
func WriteTests(prompt string) []string {
	f, ok := ParseFunction(prompt)
	if !ok {
		return nil
	}
	var out []string
	for _, c := range f.Examples {
		out = append(out, fmt.Sprintf("assert %s(%s) == %s", f.Name, c.Args, c.Result))
	}
	return out
}

var assertRe = regexp.MustCompile(`^\s*assert\s+(.*?)\s*==\s*(.*?)\s*(?:#.*)?$`)

// CasesFromFeedback reads the failing asserts of execution feedback
// ("assert f(3) == 4 # output: 5") as cases for name: the assert's
// expected value, not the output.
func CasesFromFeedback(feedback, name string) []Case {
	var out []Case
	for _, l := range strings.Split(feedback, "\n") {
		m := assertRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		args, tail, ok := call(m[1], name)
		if !ok || strings.TrimSpace(tail) != "" {
			continue
		}
		if r, ok := literal(m[2]); ok && pyLiteral(args) {
			out = append(out, Case{Args: strings.TrimSpace(args), Result: r})
		}
	}
	return out
}
