package results

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// VoteCurve computes, for a run whose strategy answers from its samples by
// a rule (its reader's reading.Samples: CoT-SC's and PAL-SC's vote,
// best-of-N's select rule over verifier scores), the expected accuracy of
// that rule and of best-of-k' at every k' ≤ k over k'-subsets of each
// item's samples (stats.VoteCurve; best and weighted by stats.ScoredCurve),
// with the tokens per item a k'-sample run would have spent: the prompt
// once plus k'/k of the completions, as one request with n = k' asks (the
// verifier's calls, one per sample, scale alike). ok is false when the run
// has no such samples.
func VoteCurve(ctx context.Context, st *store.Store, s render.Row, o stats.CurveOptions) (rows []render.SeriesRow, note string, ok bool, err error) {
	read := reading.Of(s.Strategy).Samples
	if read == nil {
		return nil, "", false, nil
	}
	items, err := st.Items(ctx, s.RunID)
	if err != nil {
		return nil, "", false, err
	}
	var vis []stats.VoteItem
	var sis []stats.ScoredItem
	var prompt, completion []float64
	rule := reading.RuleFirst
	approx := false
	for _, it := range items {
		smp, has := read(it.Detail)
		if !has || smp.Rule == reading.RuleFirst {
			continue // io and cot keep samples too, but answer with the first
		}
		rule, approx = smp.Rule, approx || smp.KeysFromAnswers
		keys := voteIDs(smp.Keys)
		vis = append(vis, stats.VoteItem{Keys: keys, Correct: smp.Correct})
		sis = append(sis, stats.ScoredItem{Keys: keys, Scores: smp.Scores, Correct: smp.Correct})
		prompt = append(prompt, float64(it.PromptTokens))
		completion = append(completion, float64(it.CompletionTokens))
	}
	if len(vis) == 0 {
		return nil, "", false, nil
	}
	scored := rule != reading.RuleVote // a verifier's rule: best, weighted or majority
	votes := stats.VoteCurve(vis, o)
	var sc []stats.ScoredPoint
	if rule == reading.RuleBest || rule == reading.RuleWeighted {
		sc = stats.ScoredCurve(sis, o) // majority is the vote curve's
	}
	for i, p := range votes {
		acc, exact, se := p.Vote, p.Exact, p.VoteSE
		switch rule {
		case reading.RuleBest:
			acc, exact, se = sc[i].Best, true, 0
		case reading.RuleWeighted:
			acc, exact, se = sc[i].Weighted, sc[i].Exact, sc[i].WeightedSE
		}
		var tokens float64
		for j := range vis {
			if k := len(vis[j].Keys); k >= p.K {
				tokens += prompt[j] + completion[j]*float64(p.K)/float64(k)
			}
		}
		r := render.SeriesRow{RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: s.Params, Model: s.Model,
			Simulated: s.Simulated, Status: s.Status, N: s.N, Step: p.K, Ran: p.Items, Accuracy: acc,
			BestOf: render.Float(p.BestOf), Exact: render.Bool(exact), MCSE: render.Float(se)}
		if p.Items > 0 {
			r.TokensPerItem = render.Float(tokens / float64(p.Items))
		}
		if len(rows) > 0 {
			r.Gain = acc - rows[len(rows)-1].Accuracy
		}
		rows = append(rows, r)
	}
	switch {
	case scored:
		note = fmt.Sprintf("run %d (%s select=%s): accuracy is that rule's over N'-subsets of each item's candidates", s.RunID, s.Strategy, rule)
	case approx:
		note = fmt.Sprintf("run %d was recorded before vote keys were kept: the scorer's extracted answers stand in for them", s.RunID)
	}
	return rows, note, true, nil
}

// GroupCurve is a CoT-SC configuration's vote curve: the mean over its
// runs of each k”s expected accuracy and tokens per item; nil when no
// run has samples.
func GroupCurve(ctx context.Context, st *store.Store, g render.Group) ([]render.CurvePoint, error) {
	var sum []render.CurvePoint
	var n []int
	for _, r := range g.Runs {
		rows, _, ok, err := VoteCurve(ctx, st, r, stats.DefaultCurveOptions)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		for i, row := range rows {
			if i >= len(sum) {
				sum = append(sum, render.CurvePoint{K: row.Step})
				n = append(n, 0)
			}
			sum[i].Accuracy += row.Accuracy
			if row.TokensPerItem != nil {
				sum[i].Tokens += *row.TokensPerItem
			}
			n[i]++
		}
	}
	for i := range sum {
		sum[i].Accuracy /= float64(n[i])
		sum[i].Tokens /= float64(n[i])
	}
	return sum, nil
}
