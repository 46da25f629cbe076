package tasks

import (
	"regexp"
	"strings"
)

// Code out of a model's text, shared by the code tasks (tasks/code) and
// the strategies that run code (selfrefine protocol=code), so that a
// strategy reads code without importing one task.

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
		if DefinesFunction(b, entry) {
			return b
		}
	}
	if len(blocks) > 0 {
		return blocks[0]
	}
	return output
}

// DefinesFunction reports whether code defines the function name at its top level
// (a whole function, not a body continuing the prompt).
func DefinesFunction(code, name string) bool {
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
