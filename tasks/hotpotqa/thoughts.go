package hotpotqa

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// HotpotQA's thought space, for ToT and MCTS: a state is the reasoning so
// far, one line per step, over the ten paragraphs of the distractor
// setting (shown in every prompt). A step is a line "From <title>: <fact>",
// the last one "Answer: <answer>". Steps are sampled (generate=sample,
// template hotpotqa/tot_sample) and judged by votes (evaluate=vote,
// hotpotqa/tot_vote); there is no propose prompt and no value prompt, so
// generate=propose and evaluate=value report an error naming the fix.

// ThoughtSteps is the search depth: two facts and the answer.
const ThoughtSteps = 3

// errThoughtMode is returned for the modes HotpotQA's space lacks.
var errThoughtMode = errors.New("hotpotqa's thought space samples and votes: use generate=sample evaluate=vote")

// Steps is 3: two facts and the answer.
func (*Task) Steps() int { return ThoughtSteps }

type thoughtData struct {
	Input, Context, State string
}

type voteChoice struct {
	N    int
	Text string
}

type voteData struct {
	Input, Context string
	Choices        []voteChoice
}

func distractorContext(inst tasks.Instance) (string, error) {
	return (*Task)(nil).RenderContext(inst, ContextDistractor)
}

// ProposePrompt is not offered (errThoughtMode).
func (*Task) ProposePrompt(*prompts.Library, tasks.Instance, string) (string, error) {
	return "", errThoughtMode
}

// Proposals is not offered: none.
func (*Task) Proposals(tasks.Instance, string, string) []string { return nil }

// SamplePrompt asks for the next line of reasoning; the reply is cut at the
// first newline.
func (*Task) SamplePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, []string, error) {
	ctx, err := distractorContext(inst)
	if err != nil {
		return "", nil, err
	}
	p, err := lib.Render("hotpotqa/tot_sample", thoughtData{Input: inst.Input, Context: ctx, State: strings.TrimRight(state, "\n")})
	return p, []string{"\n"}, err
}

// ValuePrompt is not offered (errThoughtMode).
func (*Task) ValuePrompt(*prompts.Library, tasks.Instance, string) (string, bool, error) {
	return "", false, errThoughtMode
}

// Judgement is empty: there is no value prompt.
func (*Task) Judgement(string) string { return "" }

// VotePrompt asks which state is most promising, numbered from 1.
func (*Task) VotePrompt(lib *prompts.Library, inst tasks.Instance, states []string) (string, error) {
	ctx, err := distractorContext(inst)
	if err != nil {
		return "", err
	}
	d := voteData{Input: inst.Input, Context: ctx}
	for i, s := range states {
		d.Choices = append(d.Choices, voteChoice{N: i + 1, Text: strings.TrimRight(s, "\n")})
	}
	return lib.Render("hotpotqa/tot_vote", d)
}

var bestChoice = regexp.MustCompile(`(?i)best choice is\s*\D{0,3}(\d{1,6})`)

// ParseVote reads the last "best choice is N" (1-based) as a 0-based
// index; ok is false when there is none or it is out of range.
func (*Task) ParseVote(output string, n int) (int, bool) {
	if len(output) > 64<<10 {
		output = output[len(output)-64<<10:]
	}
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

// Final reports whether the state's last line is an answer.
func (*Task) Final(state string) bool {
	lines := strings.Split(strings.TrimRight(state, "\n"), "\n")
	return strings.HasPrefix(strings.TrimSpace(lines[len(lines)-1]), "Answer:")
}

// ThoughtModes says the space samples and votes.
func (*Task) ThoughtModes() (generate, evaluate []string) {
	return []string{"sample"}, []string{"vote"}
}

var (
	_ tasks.ThoughtSpace = (*Task)(nil)
	_ tasks.ThoughtModes = (*Task)(nil)
)
