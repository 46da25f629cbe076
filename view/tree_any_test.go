package view

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

// TestAnyStoredTreeIsDrawn: the item page draws the stored tree of every
// strategy that stores one, not only tot's.
func TestAnyStoredTreeIsDrawn(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trees.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		task, strategy, rng string
		params              map[string]any
	}{
		{"crosswords", "tot_dfs", "0:1", map[string]any{"max_states": 5}},
		{"game24", "mcts", "900:901", map[string]any{"iterations": 2}},
		{"hotpotqa", "lats", "0:1", map[string]any{"iterations": 2, "n_generate": 2}},
	}
	type item struct {
		run int64
		idx int
	}
	var items []item
	for _, r := range runs {
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = r.task, r.strategy, r.rng, r.params
		sum, err := (&bench.Engine{Store: st}).Run(ctx, cfg)
		if err != nil {
			t.Fatalf("%s: %v", r.strategy, err)
		}
		nodes, err := st.Nodes(ctx, sum.RunID, atoiStart(r.rng))
		if err != nil || len(nodes) == 0 {
			t.Fatalf("%s stored no tree (%v)", r.strategy, err)
		}
		items = append(items, item{sum.RunID, atoiStart(r.rng)})
	}
	st.Close()
	srv := serveReadOnly(t, path)
	for i, it := range items {
		code, body := get(t, srv.URL+"/runs/"+formatInt(it.run)+"/items/"+formatInt(int64(it.idx)))
		if code != 200 || !strings.Contains(body, "<h2>Tree") || !strings.Contains(body, `class="tree"`) {
			t.Errorf("%s item page: status %d, no tree drawn", runs[i].strategy, code)
		}
	}
}

func atoiStart(rng string) int {
	n := 0
	for _, c := range rng {
		if c == ':' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
