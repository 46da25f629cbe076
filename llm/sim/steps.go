package sim

import "strings"

// Continuation reads a step-continuation request (strategies bon, beam,
// dvts): the conversation is the rendered prompt as a user turn, ending
// with the line header ("Solution:"), and, once steps are written, an
// assistant turn holding the partial solution, which the model continues
// (vLLM's continue_final_message). On the completions API the partial
// solution follows the header in the one prompt instead. prompt is the
// user turn up to the header; partial is what was written after it, from
// either place (both, joined, if a caller sent both).
func Continuation(p Prompt, header string) (prompt, partial string, ok bool) {
	last := len(p.Messages) - 1
	if last < 0 {
		return "", "", false
	}
	var tail string
	if p.Messages[last].Role == "assistant" {
		tail = p.Messages[last].Content
	}
	user := p.Last("user")
	i := strings.LastIndex(user, "\n"+header)
	if i < 0 {
		return "", "", false
	}
	prompt, after := user[:i+1+len(header)], user[i+1+len(header):]
	return prompt, strings.TrimLeft(after, " \n") + tail, true
}

// Steps splits a solution into its blank-line separated steps, trimmed,
// without empty ones.
func Steps(solution string) []string {
	var out []string
	for _, s := range strings.Split(solution, "\n\n") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
