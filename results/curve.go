package results

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
)

// cotscDetail is what a CoT-SC item records: the vote (with each sample's
// key, nil when it abstains) and the samples with their verdicts.
type cotscDetail struct {
	Vote struct {
		Keys []*string `json:"keys"`
	} `json:"vote"`
	Samples []struct {
		Answer  string `json:"answer"`
		Correct bool   `json:"correct"`
	} `json:"samples"`
}

// SampleKeys returns a CoT-SC item's per-sample vote keys (nil where a
// sample abstains) and verdicts. ok is false when the detail has no
// samples. Items recorded before vote keys were kept fall back to the
// scorer's extracted answers ("" abstains), and fromAnswers says so.
func SampleKeys(detail json.RawMessage) (keys []*string, correct []bool, fromAnswers, ok bool) {
	var d cotscDetail
	if json.Unmarshal(detail, &d) != nil || len(d.Samples) == 0 {
		return nil, nil, false, false
	}
	correct = make([]bool, len(d.Samples))
	for i, s := range d.Samples {
		correct[i] = s.Correct
	}
	if len(d.Vote.Keys) == len(d.Samples) {
		return d.Vote.Keys, correct, false, true
	}
	keys = make([]*string, len(d.Samples))
	for i, s := range d.Samples {
		if s.Answer != "" {
			a := s.Answer
			keys[i] = &a
		}
	}
	return keys, correct, true, true
}

// VoteCurve computes, for a CoT-SC or PAL-SC run, the expected accuracy of its
// majority vote and of best-of-k' at every k' ≤ k over k'-subsets of each
// item's samples (stats.VoteCurve), with the tokens per item a k'-sample
// run would have spent: the prompt once plus k'/k of the completions, as
// one request with n = k' asks. ok is false when the run has no samples.
func VoteCurve(ctx context.Context, st *store.Store, s report.Row, o stats.CurveOptions) (rows []report.SeriesRow, note string, ok bool, err error) {
	switch strategies.ReadingOf(s.Strategy).ByK {
	case strategies.SamplesScored:
		return scoredCurve(ctx, st, s, o)
	case strategies.SamplesVote:
	default:
		return nil, "", false, nil // io and cot keep samples too, but do not vote
	}
	items, err := st.Items(ctx, s.RunID)
	if err != nil {
		return nil, "", false, err
	}
	var vis []stats.VoteItem
	var prompt, completion []float64
	var ks []int
	approx := false
	for _, it := range items {
		keys, correct, fromAnswers, has := SampleKeys(it.Detail)
		if !has {
			continue
		}
		approx = approx || fromAnswers
		ids := map[string]int{}
		vi := stats.VoteItem{Keys: make([]int, len(keys)), Correct: correct}
		for i, k := range keys {
			if k == nil {
				vi.Keys[i] = -1
				continue
			}
			id, seen := ids[*k]
			if !seen {
				id = len(ids)
				ids[*k] = id
			}
			vi.Keys[i] = id
		}
		vis = append(vis, vi)
		prompt = append(prompt, float64(it.PromptTokens))
		completion = append(completion, float64(it.CompletionTokens))
		ks = append(ks, len(keys))
	}
	if len(vis) == 0 {
		return nil, "", false, nil
	}
	pts := stats.VoteCurve(vis, o)
	for _, p := range pts {
		var tokens float64
		for i := range vis {
			if ks[i] >= p.K {
				tokens += prompt[i] + completion[i]*float64(p.K)/float64(ks[i])
			}
		}
		r := report.SeriesRow{RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: s.Params, Model: s.Model,
			Simulated: s.Simulated, Status: s.Status, N: s.N, Step: p.K, Ran: p.Items, Accuracy: p.Vote,
			BestOf: report.Float(p.BestOf), Exact: report.Bool(p.Exact), MCSE: report.Float(p.VoteSE)}
		if p.Items > 0 {
			r.TokensPerItem = report.Float(tokens / float64(p.Items))
		}
		if len(rows) > 0 {
			r.Gain = p.Vote - rows[len(rows)-1].Accuracy
		}
		rows = append(rows, r)
	}
	if approx {
		note = fmt.Sprintf("run %d was recorded before vote keys were kept: the scorer's extracted answers stand in for them", s.RunID)
	}
	return rows, note, true, nil
}

// SampleAnswers returns a CoT-SC item's per-sample extracted answers.
func SampleAnswers(detail json.RawMessage) []string {
	var d cotscDetail
	if json.Unmarshal(detail, &d) != nil {
		return nil
	}
	out := make([]string, len(d.Samples))
	for i, s := range d.Samples {
		out[i] = s.Answer
	}
	return out
}

// GroupCurve is a CoT-SC configuration's vote curve: the mean over its
// runs of each k”s expected accuracy and tokens per item; nil when no
// run has samples.
func GroupCurve(ctx context.Context, st *store.Store, g report.Group) ([]report.CurvePoint, error) {
	var sum []report.CurvePoint
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
				sum = append(sum, report.CurvePoint{K: row.Step})
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
