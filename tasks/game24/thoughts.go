package game24

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// The ToT thought space for the Game of 24 follows the reference
// implementation: three arithmetic steps "a op b = c (left: ...)", then an
// Answer line; the numbers a step works on are the "left" of the last line.

// maxProposals bounds how many lines of one propose answer become children.
const maxProposals = 64

// Steps is 4: three arithmetic steps and the Answer step.
func (*Task) Steps() int { return 4 }

func stateLines(state string) []string {
	s := strings.TrimSpace(state)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// CurrentNumbers is the reference's get_current_numbers: the "left" of the
// last step, or the puzzle itself at the root.
func CurrentNumbers(inst tasks.Instance, state string) string {
	lines := stateLines(state)
	if len(lines) == 0 {
		return inst.Input
	}
	last := lines[len(lines)-1]
	_, after, ok := strings.Cut(last, "left: ")
	if !ok {
		return strings.TrimSpace(last)
	}
	before, _, _ := strings.Cut(after, ")")
	return strings.TrimSpace(before)
}

// ProposePrompt lists next steps, or once 24 is left asks the CoT prompt to
// write the Answer line for the steps so far.
func (*Task) ProposePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, error) {
	if CurrentNumbers(inst, state) == "24" {
		return continuation(lib, inst, state)
	}
	return lib.Render("game24/propose", struct{ Input string }{CurrentNumbers(inst, state)})
}

func continuation(lib *prompts.Library, inst tasks.Instance, state string) (string, error) {
	cot, err := lib.Render("game24/cot", struct{ Input string }{inst.Input})
	if err != nil {
		return "", err
	}
	return cot + "Steps:\n" + state, nil
}

// Proposals makes one child per non-empty line.
func (*Task) Proposals(_ tasks.Instance, state, output string) []string {
	var out []string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.EqualFold(l, "Possible next steps:") {
			continue
		}
		out = append(out, state+l+"\n")
		if len(out) == maxProposals {
			break
		}
	}
	return out
}

// SamplePrompt continues the CoT prompt after the steps so far; one line.
func (*Task) SamplePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, []string, error) {
	p, err := continuation(lib, inst, state)
	return p, []string{"\n"}, err
}

// ValuePrompt judges the numbers left, or the answer on a final line. As in
// the reference, four lines with no answer are worth 0.
func (*Task) ValuePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, bool, error) {
	lines := stateLines(state)
	if len(lines) == 4 && !strings.Contains(strings.ToLower(state), "answer") {
		return "", false, nil
	}
	if len(lines) > 0 {
		last := lines[len(lines)-1]
		if !strings.Contains(last, "left: ") {
			ans := strings.TrimSpace(last)
			if len(ans) >= 7 && strings.EqualFold(ans[:7], "answer:") {
				ans = strings.TrimSpace(ans[7:])
			}
			p, err := lib.Render("game24/value_last", struct{ Input, Answer string }{inst.Input, ans})
			return p, true, err
		}
	}
	p, err := lib.Render("game24/value", struct{ Input string }{CurrentNumbers(inst, state)})
	return p, true, err
}

// Judgement is the last line of a value answer.
func (*Task) Judgement(output string) string {
	lines := stateLines(output)
	if len(lines) == 0 {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(lines[len(lines)-1]))
}

// VotePrompt numbers the candidate states from 1.
func (*Task) VotePrompt(lib *prompts.Library, inst tasks.Instance, states []string) (string, error) {
	type choice struct {
		N    int
		Text string
	}
	cs := make([]choice, len(states))
	for i, s := range states {
		cs[i] = choice{i + 1, strings.TrimSpace(s)}
	}
	return lib.Render("game24/vote", struct {
		Input   string
		Choices []choice
	}{inst.Input, cs})
}

var bestChoice = regexp.MustCompile(`(?i)best choice is\s*(\d+)`)

// ParseVote reads "The best choice is N" (1-based) from the answer.
func (*Task) ParseVote(output string, n int) (int, bool) {
	m := bestChoice.FindAllStringSubmatch(output, -1)
	if len(m) == 0 {
		return 0, false
	}
	k, err := strconv.Atoi(m[len(m)-1][1])
	if err != nil || k < 1 || k > n {
		return 0, false
	}
	return k - 1, true
}

// Final reports whether the state has an Answer line.
func (*Task) Final(state string) bool {
	_, ok := LastAnswerLine(state)
	return ok
}

var _ tasks.ThoughtSpace = (*Task)(nil)

// describeState is used in error messages.
func describeState(state string) string { return fmt.Sprintf("%q", state) }
