package prompts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The multi-agent debate reference (composable-models/llm_multiagent_debate)
// writes its GSM8K prompts inline in gsm/gen_gsm.py, as literals passed to
// str.format, not as named constants, so its pack is built from the
// file's prose literals by their place. In file order they are: the
// question a lone agent gets in later rounds (plain text), the opening of
// the debate prompt (plain), one other agent's answer (format, one {}:
// the answer), the debate prompt's closing (format, one {}: the question),
// and the first round's question (format, one {}: the question).
const debateFile = "gsm/gen_gsm.py"

// The arithmetic script, math/gen_math.py, has eight prose literals: a
// retry notice, the lone agent's check, the debate prompt's opening, one
// other agent's answer (format, one {}), the closing (formatted with the
// question but with no field, so plain text after format), a test
// sentence, the first question (format: the six numbers in the expression
// {}+{}*{}+{}-{}*{}, which is the task's input) and an unused question.
const debateMathFile = "math/gen_math.py"

// debateExpression is the first question's six fields, the task's input.
const debateExpression = "{}+{}*{}+{}-{}*{}"

// builtPacks are the packs whose templates are composed from a
// repository's code rather than read from its constants.
var builtPacks = map[string]func(src string) (map[string]string, error){
	"debate":    importDebate,
	"tau-bench": importTau, // taupack.go
}

// importDebate builds gsm8k/cot (the first round), gsm8k/debate (the
// others' answers, then the closing) and gsm8k/debate_alone, whose output
// is byte for byte what gen_gsm.py sends.
func importDebate(src string) (map[string]string, error) {
	path := filepath.Join(src, filepath.FromSlash(debateFile))
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is %s a checkout of composable-models/llm_multiagent_debate?)", path, errNotFound(err), src)
	}
	lits, err := proseLiterals(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(lits) != 5 {
		return nil, fmt.Errorf("%s: %d prose string literals, want the 5 of gen_gsm.py (the lone agent's check, the debate prompt's opening, an agent's answer, its closing, the first question)", path, len(lits))
	}
	alone, opening, answer, closing, first := lits[0], lits[1], lits[2], lits[3], lits[4]
	for _, l := range []struct {
		name, text string
		fields     int
	}{{"the lone agent's check", alone, 0}, {"the debate prompt's opening", opening, 0},
		{"an agent's answer", answer, 1}, {"the closing", closing, 1}, {"the first question", first, 1}} {
		if n := strings.Count(strings.ReplaceAll(l.text, "{{", ""), "{}"); n != l.fields {
			return nil, fmt.Errorf("%s: %s has %d {} fields, want %d: not the gen_gsm.py this importer reads", path, l.name, n, l.fields)
		}
	}
	out := map[string]string{"gsm8k/debate_alone": PyTextToTemplate(alone)}
	if out["gsm8k/cot"], err = pyPositional(first, "{{.Input}}"); err != nil {
		return nil, fmt.Errorf("%s: the first question: %w", path, err)
	}
	each, err := pyPositional(answer, "{{.}}")
	if err != nil {
		return nil, fmt.Errorf("%s: an agent's answer: %w", path, err)
	}
	end, err := pyPositional(closing, "{{.Input}}")
	if err != nil {
		return nil, fmt.Errorf("%s: the closing: %w", path, err)
	}
	out["gsm8k/debate"] = goLiteral(opening, true) + "{{range .Others}}" + each + "{{end}}" + end
	if err := importDebateMath(src, out); err != nil {
		return nil, err
	}
	return out, nil
}

// importDebateMath adds arithmetic/cot, arithmetic/debate and
// arithmetic/debate_alone from math/gen_math.py, when the checkout has it.
func importDebateMath(src string, out map[string]string) error {
	path := filepath.Join(src, filepath.FromSlash(debateMathFile))
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	lits, err := proseLiterals(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fields := func(s string) int { return strings.Count(strings.ReplaceAll(s, "{{", ""), "{}") }
	if len(lits) != 8 || fields(lits[1])+fields(lits[2])+fields(lits[4]) != 0 || fields(lits[3]) != 1 ||
		strings.Count(lits[6], debateExpression) != 1 || fields(lits[6]) != 6 {
		return fmt.Errorf("%s: not the gen_math.py this importer reads (want 8 prose literals: the check, the opening, an answer with one {}, the closing, the first question with %s)", path, debateExpression)
	}
	alone, opening, answer, closing, first := lits[1], lits[2], lits[3], lits[4], lits[6]
	each, err := pyPositional(answer, "{{.}}")
	if err != nil {
		return fmt.Errorf("%s: an agent's answer: %w", path, err)
	}
	end, err := pyPositional(closing)
	if err != nil {
		return fmt.Errorf("%s: the closing: %w", path, err)
	}
	before, after, _ := strings.Cut(first, debateExpression)
	head, err := pyPositional(before)
	if err != nil {
		return fmt.Errorf("%s: the first question: %w", path, err)
	}
	tail, err := pyPositional(after)
	if err != nil {
		return fmt.Errorf("%s: the first question: %w", path, err)
	}
	out["arithmetic/cot"] = head + "{{.Input}}" + tail
	out["arithmetic/debate"] = goLiteral(opening, true) + "{{range .Others}}" + each + "{{end}}" + end
	out["arithmetic/debate_alone"] = PyTextToTemplate(alone)
	return nil
}

// proseLiterals are a Python file's string literals that read as prose:
// at least 20 bytes with a space (not dictionary keys, roles, paths or
// file name patterns), in file order; f-strings are refused.
func proseLiterals(src string) ([]string, error) {
	toks, err := pyTokens(src)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range toks {
		if t.kind == tkFString {
			return nil, fmt.Errorf("an f-string: its text cannot be read without Python")
		}
		if t.kind == tkString && len(t.text) >= 20 && strings.Contains(t.text, " ") {
			out = append(out, t.text)
		}
	}
	return out, nil
}

// pyPositional turns a str.format string with positional {} fields into
// a template printing actions[i] for the i-th: {{ and }} are the literal
// braces; any other field is refused.
func pyPositional(s string, actions ...string) (string, error) {
	var out, lit strings.Builder
	n := 0
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			lit.WriteByte('{')
			i++
		case strings.HasPrefix(s[i:], "}}"):
			lit.WriteByte('}')
			i++
		case strings.HasPrefix(s[i:], "{}"):
			if n == len(actions) {
				return "", fmt.Errorf("more than %d {} fields", len(actions))
			}
			out.WriteString(goLiteral(lit.String(), true) + actions[n])
			lit.Reset()
			n++
			i++
		case s[i] == '{' || s[i] == '}':
			return "", fmt.Errorf("a field other than {} at byte %d", i)
		default:
			lit.WriteByte(s[i])
		}
	}
	if n != len(actions) {
		return "", fmt.Errorf("%d {} fields, want %d", n, len(actions))
	}
	out.WriteString(goLiteral(lit.String(), false))
	return out.String(), nil
}
