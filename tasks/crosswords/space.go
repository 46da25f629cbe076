package crosswords

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// This file is the task's side of the ToT reference's depth-first search
// (scripts/crosswords/search_crosswords-dfs.ipynb), as tasks.FillSpace.

// promptData is what the crosswords templates see: {{.Input}} is the
// clue list (io, cot), the rendered board (propose) or one clue with its
// letters (value).
type promptData struct{ Input string }

// MaxActions is 10: the notebook visits a state only while env.steps < 10,
// so a state has at most 9 words.
func (*Task) MaxActions() int { return 2 * Size }

// Actions splits a state into its actions.
func Actions(state string) []string {
	if strings.TrimSpace(state) == "" {
		return nil
	}
	return strings.Split(state, "\n")
}

// ProposePrompt shows the board of state with its clues grouped by status.
func (*Task) ProposePrompt(lib *prompts.Library, inst tasks.Instance, state string) (string, error) {
	p, ok := puzzleOf(inst)
	if !ok {
		return "", fmt.Errorf("crosswords: instance %d has no puzzle", inst.Index)
	}
	b := Replay(Actions(state))
	return lib.Render("crosswords/propose", promptData{Input: b.Render(p.Clues)})
}

// proposalLine is the reference's reading of one proposal line: position,
// a word of exactly five ASCII letters, a confidence in parentheses.
var proposalLine = regexp.MustCompile(`^([hv][1-5])\. ([a-zA-Z]{5}) \((certain|high|medium|low)\).*$`)

// Confidence weights, the reference's ("ad hoc", it says).
var confidence = map[string]float64{"certain": 1, "high": 0.5, "medium": 0.2, "low": 0.1}

// Proposals reads every line of a propose answer that names a position, a
// five-letter word and a confidence; the action is lower-cased.
func (*Task) Proposals(output string) []tasks.Proposal {
	var out []tasks.Proposal
	for _, line := range strings.Split(output, "\n") {
		m := proposalLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out = append(out, tasks.Proposal{Action: strings.ToLower(m[1]) + ". " + strings.ToLower(m[2]), Weight: confidence[m[3]]})
	}
	return out
}

// Apply appends action to state; conflict is true when a clue of the new
// board has a letter overwritten.
func (*Task) Apply(_ tasks.Instance, state, action string) (string, bool) {
	child := action
	if strings.TrimSpace(state) != "" {
		child = state + "\n" + action
	}
	b := Replay(Actions(child))
	return child, b.AnyChanged()
}

// Checks asks about every clue with at most 3 blanks (the reference skips
// words with 4 or 5): the clue, then its letters lower-cased and spaced,
// blanks as '_'.
func (*Task) Checks(lib *prompts.Library, inst tasks.Instance, state string) ([]tasks.Check, error) {
	p, ok := puzzleOf(inst)
	if !ok {
		return nil, fmt.Errorf("crosswords: instance %d has no puzzle", inst.Index)
	}
	b := Replay(Actions(state))
	var out []tasks.Check
	for i := range 2 * Size {
		if b.Blanks(i) >= 4 || i >= len(p.Clues) {
			continue
		}
		letters := strings.Split(strings.ToLower(b.Word(i)), "")
		prompt, err := lib.Render("crosswords/value", promptData{Input: p.Clues[i] + ": " + strings.Join(letters, " ")})
		if err != nil {
			return nil, err
		}
		out = append(out, tasks.Check{Part: ClueName(i), Prompt: prompt})
	}
	return out, nil
}

// Verdicts a check answer may end with.
var verdicts = map[string]bool{"sure": true, "maybe": true, "impossible": true}

// Verdict is the answer's last line, stripped, when it is exactly one of
// sure, maybe, impossible.
func (*Task) Verdict(output string) string {
	last := output[strings.LastIndexByte(output, '\n')+1:]
	if v := pyStrip(last); verdicts[v] {
		return v
	}
	return ""
}
