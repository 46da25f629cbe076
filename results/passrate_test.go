package results

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// TestPassRateReadsTheStrategysSamples: difficulty levels and the most
// sampled run read an item's samples through its strategy's reader, so a
// bon run's candidates are its samples (3 of 4 right: pass@1 0.75; it
// outsamples a 2-sample CoT-SC run), while a strategy without a Samples
// reader counts each item's verdict though its detail looks like samples.
func TestPassRateReadsTheStrategysSamples(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b := "a", "b"
	cotsc := `{"vote":{"keys":["a","b"]},"samples":[{"answer":"a","correct":true},{"answer":"b"}]}`
	bon, _ := json.Marshal(reading.TTSDetail{Select: "best", Candidates: []reading.Candidate{
		{Key: &a, Correct: true}, {Key: &a, Correct: true}, {Key: &b}, {Key: &a, Correct: true}}})
	var runs []store.Run
	for _, r := range []struct {
		strategy string
		detail   string
	}{{"cotsc", cotsc}, {"bon", string(bon)}, {"tot", cotsc}} {
		id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: r.strategy, Model: "sim", Status: store.StatusDone})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: 0, Correct: true, Detail: json.RawMessage(r.detail)}); err != nil {
			t.Fatal(err)
		}
		run, err := st.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	for i, want := range []float64{0.5, 0.75, 1} {
		d, err := PassRateLevels(ctx, st, runs[i])
		if err != nil || d.PassAt1[0] != want {
			t.Errorf("%s: pass@1 %v (%v), want %v", runs[i].Strategy, d.PassAt1[0], err, want)
		}
	}
	if r, ok, err := MostSampled(ctx, st, runs); err != nil || !ok || r.Strategy != "bon" {
		t.Errorf("most sampled: %s %v %v, want bon's 4 candidates", r.Strategy, ok, err)
	}
}
