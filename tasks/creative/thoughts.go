package creative

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// The task's thought space is the reference's: two steps, each sampling
// the CoT prompt with the state appended (a plan, then plan and passage)
// and voting among the samples.

type promptData struct{ Input string }

// Steps is 2: a plan, then the passage.
func (*Task) Steps() int { return 2 }

// ThoughtModes: samples and votes only.
func (*Task) ThoughtModes() (generate, evaluate []string) {
	return []string{"sample"}, []string{"vote"}
}

// PlanStop ends a plan: the first step's samples stop before the passage.
const PlanStop = "\nPassage:\n"

// SamplePrompt is the CoT prompt with state appended; from the root the
// sample stops at PlanStop.
func (*Task) SamplePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, []string, error) {
	p, err := lib.Render("creative/cot", promptData{Input: inst.Input})
	if err != nil {
		return "", nil, err
	}
	var stop []string
	if state == "" {
		stop = []string{PlanStop}
	}
	return p + state, stop, nil
}

// JoinSample appends a sample to its state whole, as the reference does.
func (*Task) JoinSample(state, sample string) string { return state + sample }

// VotePrompt is the vote template, then each state as "Choice i:".
func (*Task) VotePrompt(lib *prompts.Library, inst tasks.Instance, states []string) (string, error) {
	p, err := lib.Render("creative/vote", promptData{Input: inst.Input})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(p)
	for i, s := range states {
		fmt.Fprintf(&b, "Choice %d:\n%s\n", i+1, s)
	}
	return b.String(), nil
}

// voteRe is the reference's reading of a vote: the last digit after the
// last "best choice is " (ASCII digits; Python's \d also takes other
// scripts' digits).
var voteRe = regexp.MustCompile(`(?s)^.*best choice is .*(\d)`)

// ParseVote reads the chosen state (0-based).
func (*Task) ParseVote(output string, n int) (int, bool) {
	m := voteRe.FindStringSubmatch(output)
	if m == nil {
		return 0, false
	}
	k, _ := strconv.Atoi(m[1])
	k--
	return k, k >= 0 && k < n
}

// Final: never before the last step.
func (*Task) Final(string) bool { return false }

// ProposePrompt is not offered (ThoughtModes).
func (*Task) ProposePrompt(*prompts.Library, tasks.Instance, string) (string, error) {
	return "", fmt.Errorf("creative offers generate=sample only")
}

// Proposals is not offered.
func (*Task) Proposals(tasks.Instance, string, string) []string { return nil }

// ValuePrompt is not offered (ThoughtModes).
func (*Task) ValuePrompt(*prompts.Library, tasks.Instance, string) (string, bool, error) {
	return "", false, fmt.Errorf("creative offers evaluate=vote only")
}

// Judgement is not offered.
func (*Task) Judgement(string) string { return "" }
