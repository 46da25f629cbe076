package bench

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// TestFinishedRunKeepsNoCheckpoints runs MCTS, which checkpoints every
// iteration, and checks that checkpoints existed while items ran and none
// is left once they finished.
func TestFinishedRunKeepsNoCheckpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "game24", "mcts", "900:903", 1
	cfg.Params = map[string]any{"iterations": 4, "solved_value": 2}
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int64 // most checkpoints seen during a call
	backend := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		var n int64
		if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM checkpoints`).Scan(&n); err != nil {
			return llm.Response{}, err
		}
		if n > seen.Load() {
			seen.Store(n)
		}
		return model.Sample(ctx, req)
	})
	sum, err := (&Engine{Store: st, Backend: backend}).Run(ctx, cfg)
	if err != nil || sum.N != 3 {
		t.Fatalf("run: %+v %v", sum, err)
	}
	var left int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM checkpoints`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if seen.Load() == 0 || left != 0 {
		t.Errorf("%d checkpoints seen during the run, %d left after it; want some, then none", seen.Load(), left)
	}
}
