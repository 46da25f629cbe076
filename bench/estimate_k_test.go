package bench

import (
	"context"
	"testing"
)

// TestEstimateCountsEverySample: a call asking for k samples counts k
// samples, and with --max-n its prompt once per request it takes.
func TestEstimateCountsEverySample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const k, items = 5, 2
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cotsc", "900:902"
	cfg.Params = map[string]any{"k": k}
	var perPrompt []int
	for _, maxN := range []int{0, 2} {
		cfg.MaxN = maxN
		est, err := EstimateRuns(ctx, []Config{cfg}, "gpt-4", nil, []float64{0.5})
		if err != nil {
			t.Fatal(err)
		}
		u := est.Rows[0].ByPurpose["cotsc"]
		if u.Calls != items || u.Samples != k*items {
			t.Fatalf("max-n %d: %d calls, %d samples; want %d calls of %d samples", maxN, u.Calls, u.Samples, items, k)
		}
		perPrompt = append(perPrompt, u.PromptTokens)
	}
	// k=5 at most 2 a request: 3 requests, each sending the prompt.
	if perPrompt[0] == 0 || perPrompt[1] != 3*perPrompt[0] {
		t.Fatalf("prompt tokens %d without --max-n, %d with --max-n 2; want three times as many", perPrompt[0], perPrompt[1])
	}
}
