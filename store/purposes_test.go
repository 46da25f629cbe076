package store

import (
	"context"
	"encoding/json"
	"testing"
)

// TestPurposeTotals sums calls per item and purpose across batches (an
// item's calls flushed at a checkpoint and at its end) and runs.
func TestPurposeTotals(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	var runs [2]int64
	for i := range runs {
		id, err := st.CreateRun(ctx, Run{Task: "t", Strategy: "bon", Params: json.RawMessage(`{}`), Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = id
	}
	add := func(run int64, item int, calls ...Call) {
		l := st.CallLog(run, item)
		for _, c := range calls {
			l.Add(c)
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	add(runs[0], 0, Call{Purpose: "sample", PromptTokens: 10, CompletionTokens: 100, Requests: 1},
		Call{Purpose: "verify", PromptTokens: 300, Requests: 1, CacheHit: true})
	add(runs[0], 0, Call{Purpose: "verify", PromptTokens: 250, CompletionTokens: 1, Requests: 1, Cost: 0.5})
	add(runs[0], 3, Call{Purpose: "sample", PromptTokens: 7, CompletionTokens: 70, ReasoningTokens: 20, Requests: 2})
	add(runs[1], 0, Call{Purpose: "sample", PromptTokens: 1000, CompletionTokens: 1000, Requests: 1})

	got, err := st.PurposeTotals(ctx, runs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]map[string]RunTotals{
		0: {"sample": {Calls: 1, Requests: 1, PromptTokens: 10, CompletionTokens: 100},
			"verify": {Calls: 2, Requests: 2, PromptTokens: 550, CompletionTokens: 1, Cost: 0.5}},
		3: {"sample": {Calls: 1, Requests: 2, PromptTokens: 7, CompletionTokens: 70, ReasoningTokens: 20}},
	}
	if len(got) != len(want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	for item, m := range want {
		if len(got[item]) != len(m) {
			t.Errorf("item %d: %v, want %v", item, got[item], m)
		}
		for p, w := range m {
			if got[item][p] != w {
				t.Errorf("item %d %s: %+v, want %+v", item, p, got[item][p], w)
			}
		}
	}
}
