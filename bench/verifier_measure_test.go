package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/verify"
)

// TestSimulatedVerifierOnSimulatedChains measures how well the simulated
// prm tells the simulator's right chains of thought from its wrong ones
// (AUC of the min-aggregated score; gold only labels the chains here, the
// verifier never sees it) and what picking the best of k by it gives
// against the mean sample. Game of 24's wrong chains break the arithmetic
// or the bookkeeping, which it re-checks; GSM8K's mostly take a wrong
// operation with right arithmetic, which it cannot see.
func TestSimulatedVerifierOnSimulatedChains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		task, rng string
		flip      float64
		minAUC    float64
	}{{"game24", "900:940", sim.DefaultVerifyFlip, 0.6}, {"game24", "900:940", 0, 0.9}, {"gsm8k", "0:40", sim.DefaultVerifyFlip, 0}} {
		params := DefaultConfig().Sim
		params.VerifyFlip = tc.flip
		model, err := NewSim(params)
		if err != nil {
			t.Fatal(err)
		}
		v, err := verify.New(model, verify.Options{Kind: verify.PRM, Prompts: lib})
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range = tc.task, "cot", tc.rng
		cfg.Params = map[string]any{"k": 8, "temperature": 0.7}
		e := &Engine{Store: tempStore(t)}
		sum, err := e.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		items, err := e.Store.Items(ctx, sum.RunID)
		if err != nil {
			t.Fatal(err)
		}
		var right, wrong []float64
		picked, mean := 0.0, 0.0
		for _, it := range items {
			var d struct{ Samples []reading.Sample }
			if err := json.Unmarshal(it.Detail, &d); err != nil {
				t.Fatal(err)
			}
			best, bestCorrect, n := -1.0, false, 0.0
			for i, s := range d.Samples {
				var steps []string
				for _, l := range strings.Split(s.Output, "\n") {
					if strings.TrimSpace(l) != "" {
						steps = append(steps, l)
					}
				}
				if len(steps) == 0 {
					steps = []string{""}
				}
				sc, err := v.Verify(ctx, verify.Request{Call: fmt.Sprintf("%d/%d", it.Index, i), Problem: it.Input, Steps: steps})
				if err != nil {
					t.Fatal(err)
				}
				agg, _ := verify.Aggregate("min", sc)
				if s.Correct {
					right = append(right, agg)
					n++
				} else {
					wrong = append(wrong, agg)
				}
				if agg > best { // ties to the first sample
					best, bestCorrect = agg, s.Correct
				}
			}
			if bestCorrect {
				picked++
			}
			mean += n / float64(len(d.Samples))
		}
		auc := 0.0
		for _, r := range right {
			for _, w := range wrong {
				switch {
				case r > w:
					auc++
				case r == w:
					auc += 0.5
				}
			}
		}
		if len(right) > 0 && len(wrong) > 0 {
			auc /= float64(len(right) * len(wrong))
		}
		t.Logf("%s %s, verify_flip %.2f: %d right and %d wrong chains, AUC %.3f; best of 8 by the verifier %.3f, mean sample %.3f",
			tc.task, tc.rng, tc.flip, len(right), len(wrong), auc, picked/float64(len(items)), mean/float64(len(items)))
		if auc < tc.minAUC {
			t.Errorf("%s: AUC %.3f, want at least %.2f", tc.task, auc, tc.minAUC)
		}
	}
}
