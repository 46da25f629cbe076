package strategies

import (
	"context"
	"encoding/json"

	"github.com/reasonbench/reasonbench/tasks"
)

// tally is a throw-away strategy (the read-side recipe's demonstration):
// CoT-SC's k chains and vote, recorded in a detail type of its own.
type tally struct{ inner Strategy }

// tallyDetail is tally's item detail: the vote shape the read side draws
// (DrawVotes) and reads (SamplesVote), plus its own margin.
type tallyDetail struct {
	Vote    VoteResult `json:"vote"`
	Samples []Sample   `json:"samples"`
	Margin  int        `json:"margin"` // the winner's votes over the runner-up's
}

func newTally(v Values) (Strategy, error) {
	s, err := newCoTSC(v)
	return &tally{s}, err
}

func (t *tally) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	r, err := t.inner.Solve(ctx, env, inst)
	if err != nil {
		return r, err
	}
	b, err := json.Marshal(r.Detail)
	if err != nil {
		return r, err
	}
	var d tallyDetail
	if err := json.Unmarshal(b, &d); err != nil {
		return r, err
	}
	if c := d.Vote.Counts; len(c) > 0 {
		d.Margin = c[0].Count
		if len(c) > 1 {
			d.Margin -= c[1].Count
		}
	}
	r.Detail = d
	return r, nil
}
