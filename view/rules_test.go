package view

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

// TestCompareWarnsOfMixedRules: the compare page of runs scored by
// different rules opens with a warning naming each rule and its runs; of
// runs under one rule it has none. The run table names each interval.
func TestCompareWarnsOfMixedRules(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rules.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, rule := range []string{"", "paper", ""} {
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Rule = "game24", "cot", "900:905", rule
		if len(ids) == 2 {
			cfg.Strategy, cfg.Params = "io", map[string]any{"k": 4}
		}
		sum, err := (&bench.Engine{Store: st}).Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, formatInt(sum.RunID))
	}
	st.Close()
	srv := serveReadOnly(t, path)
	code, body := get(t, srv.URL+"/compare?runs="+ids[1]+","+ids[0])
	if code != 200 || !strings.Contains(body, `id="mixed-rules"`) || !strings.Contains(body, "game24/paper (run "+ids[1]+")") ||
		!strings.Contains(body, "game24/strict (run "+ids[0]+")") {
		t.Errorf("compare across rules: %d, no warning naming both rules:\n%.3000s", code, body)
	}
	code, body = get(t, srv.URL+"/compare?runs="+ids[0]+","+ids[2])
	if code != 200 || strings.Contains(body, `id="mixed-rules"`) {
		t.Errorf("compare under one rule: %d, warned", code)
	}
	// cot's items score 0/1 (Wilson); io k=4's are means of 4 samples (t).
	if !strings.Contains(body, "] Wilson</td>") || !strings.Contains(body, "] t</td>") {
		t.Errorf("the compare page's run table does not name each interval:\n%.3000s", body)
	}
}
