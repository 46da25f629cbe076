package code

import (
	"regexp"
	"strings"
)

// MaxCode bounds the code taken from one output: a program longer than
// this is a recorded failure, not a sandbox run.
const MaxCode = 1 << 20

var fence = regexp.MustCompile("(?s)```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\\z)")

// ExtractCode takes the program out of a model's text: the first fenced
// block labelled python (or py, or unlabelled) that defines entry, else
// the first such block, else the whole text. A chat model answers in a
// fence; a completion model continues the prompt with a body.
func ExtractCode(output, entry string) string {
	var blocks []string
	for _, m := range fence.FindAllStringSubmatch(output, -1) {
		switch strings.ToLower(m[1]) {
		case "", "python", "py", "python3":
			blocks = append(blocks, m[2])
		}
	}
	for _, b := range blocks {
		if Defines(b, entry) {
			return b
		}
	}
	if len(blocks) > 0 {
		return blocks[0]
	}
	return output
}

// Defines reports whether code defines the function name at its top level
// (a whole function, not a body continuing the prompt).
func Defines(code, name string) bool {
	if name == "" {
		return false
	}
	for _, line := range strings.Split(code, "\n") {
		line = strings.TrimPrefix(line, "async ")
		if rest, ok := strings.CutPrefix(line, "def "+name); ok {
			if r := strings.TrimLeft(rest, " \t"); strings.HasPrefix(r, "(") {
				return true
			}
		}
	}
	return false
}

// Solution is the function's source as the hidden test will see it: a
// whole function as written, a body appended to the prompt (as
// openai/human-eval does with completions and the Reflexion logs'
// validation does with their bodies).
func Solution(prompt, entry, code string) string {
	if Defines(code, entry) {
		return code
	}
	return prompt + code
}

// importLine matches a top-level import statement.
var importLine = regexp.MustCompile(`(?m)^(?:from\s+\S+\s+import\s+.+|import\s+.+)$`)

// Program is the isolated rule's program for one output's code: the
// solution, then the hidden test, then check(entry_point) unless the test
// calls its checks itself. A whole function gets the prompt's imports
// first: they are part of the problem statement (HumanEval's prompts import
// List for their signatures), and a chat answer that repeats only the
// function would otherwise fail on a name the prompt gave it. (The
// reference rule does not add them; see Reference.)
func Program(p Problem, code string) string {
	var b strings.Builder
	if Defines(code, p.EntryPoint) {
		for _, imp := range importLine.FindAllString(p.Prompt, -1) {
			b.WriteString(imp)
			b.WriteByte('\n')
		}
	}
	b.WriteString(Solution(p.Prompt, p.EntryPoint, code))
	b.WriteString("\n\n")
	b.WriteString(p.HiddenTest)
	if !p.SelfChecking() {
		b.WriteString("\n\ncheck(" + p.EntryPoint + ")\n")
	}
	return b.String()
}

// failure is the tail of a failed run's standard error: the failing
// assert or the exception, for a score's reason.
func failure(stderr string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < 2; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "^") || strings.HasPrefix(l, "~") {
			continue
		}
		keep = append([]string{l}, keep...)
	}
	s := strings.Join(keep, " | ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
