package bench

import (
	"fmt"
	"math"

	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

// Votes of `bench score --vote` that use a verifier's score of each sample
// (the record's "verifier_score") rather than a task's vote key.
const (
	// VoteBest picks the sample with the highest score, the first of equal
	// ones (best-of-N; Qwen2.5-Math's rm@k: rm_score.index(max(rm_score))).
	VoteBest = "best"
	// VoteWeighted sums the scores of the samples giving each answer (the
	// task's default vote key) and picks the answer with the largest sum,
	// the answer seen first among equal sums, and its first sample
	// (weighted best-of-N, as search-and-learn's find_answer_with_largest_sum;
	// one difference: a sample with no answer gives no vote here, where
	// search-and-learn groups every empty prediction as one more answer).
	VoteWeighted = "weighted"
)

// VerifierField is the record field VoteBest and VoteWeighted read.
const VerifierField = "verifier_score"

// verifierScore reads a record's verifier score: a finite number.
func verifierScore(rec map[string]any) (float64, error) {
	v, ok := rec[VerifierField]
	if !ok {
		return 0, fmt.Errorf("no %q field for --vote %s|%s", VerifierField, VoteBest, VoteWeighted)
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is %v, want a number", VerifierField, v)
	}
	return f, nil
}

// BestOf is the index of the highest score, the first of equal ones; -1
// for none.
func BestOf(scores []float64) int {
	best := -1
	for i, s := range scores {
		if best < 0 || s > scores[best] {
			best = i
		}
	}
	return best
}

// WeightedVote sums scores per answer key and returns the winning key, its
// first sample and its summed score; winner is -1 when every output
// abstains.
func WeightedVote(task tasks.Task, inst tasks.Instance, outputs []string, scores []float64) (key string, winner int, weight float64) {
	vk := task.VoteKeys()[0]
	sum := map[string]float64{}
	first := map[string]int{}
	var order []string
	for i, out := range outputs {
		k, ok := task.AnswerKey(inst, out, vk)
		if !ok {
			continue
		}
		if _, seen := first[k]; !seen {
			first[k] = i
			order = append(order, k)
		}
		sum[k] += scores[i]
	}
	winner = -1
	for _, k := range order {
		if winner < 0 || sum[k] > weight {
			key, winner, weight = k, first[k], sum[k]
		}
	}
	return key, winner, weight
}

// groupVote decides a group under o.Vote: the sample picked, the line's
// fields.
func groupVote(task tasks.Task, g *group, vote string) (int, map[string]any) {
	switch vote {
	case VoteBest:
		w := BestOf(g.scores)
		line := map[string]any{"vote": VoteBest, "pick": w}
		if w >= 0 {
			k, _ := task.AnswerKey(tasks.Instance{}, g.outputs[w], task.VoteKeys()[0])
			line["voted"], line["score"] = k, g.scores[w]
		}
		return w, line
	case VoteWeighted:
		k, w, weight := WeightedVote(task, tasks.Instance{}, g.outputs, g.scores)
		return w, map[string]any{"vote": VoteWeighted, "pick": w, "voted": k, "weight": weight}
	}
	v := strategies.Vote(task, tasks.Instance{}, g.outputs, vote)
	votes := 0
	if len(v.Counts) > 0 {
		votes = v.Counts[0].Count
	}
	return v.Winner, map[string]any{"voted": v.Key, "votes": votes, "abstain": v.Abstain, "pick": v.Winner}
}
