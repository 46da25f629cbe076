package qa

import (
	"errors"
	"strings"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// The thought space of question-answer tasks, for ToT and MCTS: the ToT
// paper's generic setting. A state is the reasoning so far, one line per
// step; each step is sampled as the next line of a chain of thought
// (generate=sample, template qa/tot_sample) and candidates are judged by
// votes (evaluate=vote, qa/tot_vote). The last of Steps lines is the
// answer, "Answer: ...". There is no propose or value prompt.

var errThoughtMode = errors.New("question-answer tasks sample and vote: use --set generate=sample --set evaluate=vote")

// Steps is the spec's steps (default 3): lines of reasoning, the answer
// line included.
func (t *Task) Steps() int { return t.steps }

// thoughtData is what qa/tot_sample sees.
type thoughtData struct {
	Input, Context, State string
	Step, Steps           int  // the line asked for (1-based) and the total
	Last                  bool // the line asked for is the answer
}

// voteData is what qa/tot_vote sees.
type voteData struct {
	Input, Context string
	Choices        []voteChoice
}

type voteChoice struct {
	N    int
	Text string
}

// SamplePrompt asks for the next line of reasoning; the reply is cut at
// the first newline.
func (t *Task) SamplePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, []string, error) {
	state = strings.TrimRight(state, "\n")
	done := 0
	if state != "" {
		done = strings.Count(state, "\n") + 1
	}
	d := thoughtData{Input: inst.Input, Context: renderContext(rowOf(inst).Context), State: state,
		Step: done + 1, Steps: t.steps, Last: done+1 >= t.steps}
	p, err := lib.Render(tasks.TemplateName(lib, t, "tot_sample"), d)
	return p, []string{"\n"}, err
}

// VotePrompt asks which state is most promising, numbered from 1.
func (t *Task) VotePrompt(lib *prompts.Library, inst tasks.Instance, states []string) (string, error) {
	d := voteData{Input: inst.Input, Context: renderContext(rowOf(inst).Context)}
	for i, s := range states {
		d.Choices = append(d.Choices, voteChoice{N: i + 1, Text: strings.TrimRight(s, "\n")})
	}
	return lib.Render(tasks.TemplateName(lib, t, "tot_vote"), d)
}

// ParseVote reads the last "best choice is N", as HotpotQA's votes are
// read.
func (*Task) ParseVote(output string, n int) (int, bool) {
	return (*hotpotqa.Task)(nil).ParseVote(output, n)
}

// Final reports whether the state's last line is an answer.
func (*Task) Final(state string) bool { return (*hotpotqa.Task)(nil).Final(state) }

// ThoughtModes says the space samples and votes.
func (*Task) ThoughtModes() (generate, evaluate []string) {
	return []string{"sample"}, []string{"vote"}
}

// ProposePrompt is not offered.
func (*Task) ProposePrompt(*prompts.Library, tasks.Instance, string) (string, error) {
	return "", errThoughtMode
}

// Proposals is not offered: none.
func (*Task) Proposals(tasks.Instance, string, string) []string { return nil }

// ValuePrompt is not offered.
func (*Task) ValuePrompt(*prompts.Library, tasks.Instance, string) (string, bool, error) {
	return "", false, errThoughtMode
}

// Judgement is empty: there is no value prompt.
func (*Task) Judgement(string) string { return "" }

var (
	_ tasks.ThoughtSpace = (*Task)(nil)
	_ tasks.ThoughtModes = (*Task)(nil)
)
