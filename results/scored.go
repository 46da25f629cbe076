package results

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// bonDetail is what a bon item records (strategies.TTSDetail): the rule,
// and every candidate with its answer key (nil: no answer), aggregated
// verifier score and verdict.
type bonDetail struct {
	Select     string `json:"select"`
	Candidates []struct {
		Key     *string `json:"key"`
		Score   float64 `json:"score"`
		Correct bool    `json:"correct"`
	} `json:"candidates"`
}

// scoredCurve is --by k for a bon run: for every N' ≤ N, the expected
// accuracy of its rule over N'-subsets of each item's N candidates —
// best (the highest score, exact), weighted (scores summed per answer;
// enumerated, or sampled with mc_se) or majority (CoT-SC's vote) — with
// best-of-N' and the tokens an N'-candidate run would have spent, the
// prompt once plus N'/N of the completions (the verifier's calls, one per
// candidate, scale alike). ok is false when no item has candidates.
func scoredCurve(ctx context.Context, st *store.Store, s report.Row, o stats.CurveOptions) (rows []report.SeriesRow, note string, ok bool, err error) {
	items, err := st.Items(ctx, s.RunID)
	if err != nil {
		return nil, "", false, err
	}
	var sis []stats.ScoredItem
	var vis []stats.VoteItem
	var prompt, completion []float64
	rule := ""
	for _, it := range items {
		var d bonDetail
		if json.Unmarshal(it.Detail, &d) != nil || len(d.Candidates) == 0 {
			continue
		}
		rule = d.Select
		ids := map[string]int{}
		si := stats.ScoredItem{Keys: make([]int, len(d.Candidates)), Scores: make([]float64, len(d.Candidates)), Correct: make([]bool, len(d.Candidates))}
		for i, c := range d.Candidates {
			si.Scores[i], si.Correct[i], si.Keys[i] = c.Score, c.Correct, -1
			if c.Key != nil {
				id, seen := ids[*c.Key]
				if !seen {
					id = len(ids)
					ids[*c.Key] = id
				}
				si.Keys[i] = id
			}
		}
		sis = append(sis, si)
		vis = append(vis, stats.VoteItem{Keys: si.Keys, Correct: si.Correct})
		prompt = append(prompt, float64(it.PromptTokens))
		completion = append(completion, float64(it.CompletionTokens))
	}
	if len(sis) == 0 {
		return nil, "", false, nil
	}
	votes := stats.VoteCurve(vis, o)
	scored := stats.ScoredCurve(sis, o)
	for i, v := range votes {
		acc, exact, se := v.Vote, v.Exact, v.VoteSE
		switch rule {
		case "best":
			acc, exact, se = scored[i].Best, true, 0
		case "weighted":
			acc, exact, se = scored[i].Weighted, scored[i].Exact, scored[i].WeightedSE
		}
		var tokens float64
		for j := range sis {
			if k := len(sis[j].Keys); k >= v.K {
				tokens += prompt[j] + completion[j]*float64(v.K)/float64(k)
			}
		}
		r := report.SeriesRow{RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: s.Params, Model: s.Model,
			Simulated: s.Simulated, Status: s.Status, N: s.N, Step: v.K, Ran: v.Items, Accuracy: acc,
			BestOf: report.Float(v.BestOf), Exact: report.Bool(exact), MCSE: report.Float(se)}
		if v.Items > 0 {
			r.TokensPerItem = report.Float(tokens / float64(v.Items))
		}
		if len(rows) > 0 {
			r.Gain = acc - rows[len(rows)-1].Accuracy
		}
		rows = append(rows, r)
	}
	return rows, fmt.Sprintf("run %d (bon select=%s): accuracy is that rule's over N'-subsets of each item's candidates", s.RunID, rule), true, nil
}
