package strategies

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/tasks"
)

// voteTask answers "answer: X" with key X; any other output gives no
// answer and so no vote.
type voteTask struct{}

func (voteTask) Name() string                         { return "votetest" }
func (voteTask) Instances() ([]tasks.Instance, error) { return nil, nil }
func (voteTask) Score(_ tasks.Instance, out string) tasks.Score {
	k, _ := voteTask{}.AnswerKey(tasks.Instance{}, out, "answer")
	return tasks.Score{Correct: k == "24", Answer: k}
}
func (voteTask) AnswerKey(_ tasks.Instance, out, _ string) (string, bool) {
	k, ok := strings.CutPrefix(out, "answer: ")
	if !ok || k == "" {
		return "", false
	}
	return k, true
}
func (voteTask) VoteKeys() []string { return []string{"answer"} }

func TestVoteTiesGoToTheAnswerSeenFirst(t *testing.T) {
	t.Parallel()
	cases := []struct {
		outputs []string
		key     string
		winner  int
	}{
		{[]string{"answer: 7", "answer: 24", "answer: 24", "answer: 7"}, "7", 0},
		{[]string{"answer: 24", "answer: 7", "answer: 7", "answer: 24"}, "24", 0},
		{[]string{"answer: 1", "answer: 2", "answer: 3"}, "1", 0},
		{[]string{"answer: 1", "answer: 2", "answer: 2", "answer: 3", "answer: 3"}, "2", 1},
	}
	for _, c := range cases {
		v := Vote(voteTask{}, tasks.Instance{}, c.outputs, "")
		if v.Key != c.key || v.Winner != c.winner {
			t.Errorf("Vote(%q) = key %q winner %d, want %q at %d", c.outputs, v.Key, v.Winner, c.key, c.winner)
		}
		if v.Counts[0].Key != c.key {
			t.Errorf("Vote(%q): counts %+v should list the winner first", c.outputs, v.Counts)
		}
	}
}

func TestVoteAbstentionsNeverVote(t *testing.T) {
	t.Parallel()
	// Three outputs without an answer would outvote two with one, were
	// they counted as an (empty) answer.
	outputs := []string{"no idea", "answer: 24", "", "answer: 24", "I give up", "answer: 5"}
	v := Vote(voteTask{}, tasks.Instance{}, outputs, "")
	if v.Key != "24" || v.Winner != 1 || v.Abstain != 3 {
		t.Errorf("Vote = %+v, want 24 from output 1 with 3 abstaining", v)
	}
	total := 0
	for _, c := range v.Counts {
		if c.Key == "" {
			t.Errorf("an abstention was counted as the answer %q: %+v", c.Key, v.Counts)
		}
		total += c.Count
	}
	if total+v.Abstain != len(outputs) {
		t.Errorf("counts %+v and %d abstentions do not add up to %d outputs", v.Counts, v.Abstain, len(outputs))
	}
	for i, k := range v.Keys {
		if abstains := !strings.HasPrefix(outputs[i], "answer: "); abstains != (k == nil) {
			t.Errorf("output %d %q: key %v", i, outputs[i], k)
		}
	}
	// Only abstentions: no winner, no output.
	none := Vote(voteTask{}, tasks.Instance{}, []string{"", "hmm"}, "")
	if none.Winner != -1 || none.Key != "" || len(none.Counts) != 0 || none.Abstain != 2 {
		t.Errorf("all abstain: %+v", none)
	}
}

// TestVoteMatchesStatsWinner holds CoT-SC's vote and the rule bench report
// --by k enumerates subsets with (stats.Winner) together on random outputs.
func TestVoteMatchesStatsWinner(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		n := 1 + rng.IntN(9)
		outputs := make([]string, n)
		keys := make([]int, n)
		idx := make([]int, n)
		for i := range outputs {
			idx[i] = i
			if k := rng.IntN(4) - 1; k >= 0 {
				outputs[i], keys[i] = "answer: "+strconv.Itoa(k), k
			} else {
				outputs[i], keys[i] = "nothing", -1
			}
		}
		if got, want := Vote(voteTask{}, tasks.Instance{}, outputs, "").Winner, stats.Winner(keys, idx); got != want {
			t.Fatalf("outputs %q: Vote picks %d, stats.Winner %d", outputs, got, want)
		}
	}
}
