package code

import (
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// MaxCode bounds the code taken from one output (tasks.MaxCode).
const MaxCode = tasks.MaxCode

// ExtractCode takes the program out of a model's text (tasks.ExtractCode).
func ExtractCode(output, entry string) string { return tasks.ExtractCode(output, entry) }

// Defines reports whether code defines the function name at its top level
// (tasks.DefinesFunction).
func Defines(code, name string) bool { return tasks.DefinesFunction(code, name) }

// Solution is the function's source as the Reflexion executor runs it
// (the reference rule): a whole function as written, a body appended to
// the prompt (as the Reflexion logs' validation does with their bodies).
func Solution(prompt, entry, code string) string {
	if Defines(code, entry) {
		return code
	}
	return prompt + code
}

// Program is the isolated rule's program for one output's code, as
// openai/human-eval assembles it (execution.py: prompt + completion, the
// test, check(entry_point)): the prompt, then the code, then the hidden
// test, then check(entry_point) unless the test calls its checks itself
// (MBPP's calls test_check()). A body continues the prompt's function; a
// whole function follows the prompt's stub and replaces it, with the
// prompt's imports and helper functions (HumanEval/38's encode_cyclic)
// defined before it, as they are for a completion.
func Program(p Problem, code string) string {
	var b strings.Builder
	b.WriteString(CandidateModule(p, code))
	b.WriteString(p.HiddenTest)
	if !p.SelfChecking() {
		b.WriteString("\n" + "check(" + p.EntryPoint + ")\n")
	}
	return b.String()
}

// CandidateModule is the program's side of the isolated rule: the prompt
// and the code as Program assembles them, without the test (which runs in
// the judge's process).
func CandidateModule(p Problem, code string) string {
	var b strings.Builder
	b.WriteString(p.Prompt)
	if Defines(code, p.EntryPoint) && !strings.HasSuffix(p.Prompt, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(code)
	b.WriteString("\n")
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
