package results

import (
	"context"
	"math"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
)

// A debate of two models on two endpoints: report --by model's rows are
// each model's calls, tokens and cost, and sum to the run's.
func TestModelUses(t *testing.T) {
	ctx := context.Background()
	var urls []string
	for range 2 {
		m, err := bench.NewSim(bench.DefaultConfig().Sim)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{}))
		defer srv.Close()
		urls = append(urls, srv.URL+"/v1")
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := bench.DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "debate", "900:904"
	cfg.Params = map[string]any{"agents": 3, "rounds": 2, "temperature": 0.7, "models": "sim@a,sim@b,sim@b"}
	cfg.NamedEndpoints = []bench.Endpoint{{Name: "a", URL: urls[0]}, {Name: "b", URL: urls[1]}}
	cfg.Prices = llm.Prices{"sim": {Prompt: 1, Completion: 2}}
	sum, err := (&bench.Engine{Store: st}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ModelUses(ctx, st, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Model != "sim@a" || rows[1].Model != "sim@b" || rows[0].Calls != 4*2 || rows[1].Calls != 4*2*2 {
		t.Fatalf("rows %+v, want sim@a with 8 calls and sim@b with 16", rows)
	}
	var cost float64
	tokens := 0
	for _, r := range rows {
		cost += r.Cost
		tokens += r.PromptTokens + r.CompletionTokens
		if r.Cost <= 0 {
			t.Errorf("%s cost nothing at a price", r.Model)
		}
	}
	if math.Abs(cost-sum.Cost) > 1e-9 || tokens != sum.PromptTokens+sum.CompletionTokens {
		t.Errorf("by model: cost %v tokens %d; the run: %v, %d", cost, tokens, sum.Cost, sum.PromptTokens+sum.CompletionTokens)
	}
}
