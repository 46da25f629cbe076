package results

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/store"
)

// tempStore is an empty store in the test's folder.
func tempStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// putItems stores a run of strategy with one item per detail (metrics
// alongside, nil for none) and returns the run.
func putItems(t *testing.T, st *store.Store, strategy string, details []any, metrics []map[string]float64) store.Run {
	t.Helper()
	ctx := context.Background()
	id, err := st.CreateRun(ctx, store.Run{Task: "qa", Strategy: strategy, Model: "m", Status: store.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range details {
		b, _ := json.Marshal(d)
		it := store.Item{RunID: id, Index: i, Detail: b}
		if metrics != nil {
			it.Metrics = metrics[i]
		}
		if err := st.PutItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	r, err := st.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func call(server, tool string, ms float64, failed, cached bool) map[string]any {
	c := map[string]any{"id": server + "/" + tool + "/0#0", "server": server, "tool": tool, "latency_ms": ms, "result": "r"}
	if failed {
		c["error"] = "no answer"
	}
	if cached {
		c["cached"] = true
	}
	return c
}

// TestToolRows: per tool, its calls, errors, success rate, replays and
// latencies; the (all) row sums them and spreads calls and steps per
// item; calls are found wherever a strategy keeps them; a run without
// tool calls gives no rows.
func TestToolRows(t *testing.T) {
	st := tempStore(t)
	withTools := putItems(t, st, "react", []any{
		// react: calls inside the steps' actions
		map[string]any{"steps": []any{map[string]any{"actions": []any{map[string]any{"tool_call": call("web", "search", 10, false, false)}}},
			map[string]any{"actions": []any{map[string]any{"tool_call": call("web", "search", 30, true, true)}}}}},
		// reflexion: a trial's list
		map[string]any{"trials": []any{map[string]any{"tool_calls": []any{call("calc", "add", 5, false, true), call("web", "search", 20, false, false),
			call("web", "search", 40, false, false)}}}},
		// none, and a lookalike without a latency
		map[string]any{"note": map[string]any{"id": "x", "server": "s", "tool": "t"}},
	}, []map[string]float64{{"steps": 3}, {"steps": 5}, {"steps": 1}})
	without := putItems(t, st, "cot", []any{map[string]any{"samples": []string{"a"}}}, nil)
	rows, err := ToolRows(context.Background(), st, []store.Run{without, withTools})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want calc/add, web/search and (all): %+v", len(rows), rows)
	}
	type want struct {
		server, tool            string
		calls, errors, replayed int
		success, mean, p50, p90 float64
	}
	for i, w := range []want{
		{"calc", "add", 1, 0, 1, 1, 5, 5, 5},
		{"web", "search", 4, 1, 1, 0.75, 25, 20, 40},
		{"", "(all)", 5, 1, 2, 0.8, 21, 20, 40},
	} {
		r := rows[i]
		if r.RunID != withTools.ID || r.N != 3 || r.Strategy != "react" || r.Server != w.server || r.Tool != w.tool || r.Calls != w.calls ||
			r.Errors != w.errors || r.Replayed != w.replayed || r.Success != w.success || r.LatencyMS != w.mean || r.P50MS != w.p50 || r.P90MS != w.p90 {
			t.Errorf("row %d = %+v, want %+v", i, r, w)
		}
	}
	all := rows[2]
	if all.CallsPerItem == nil || *all.CallsPerItem != (report.Spread{Mean: 5.0 / 3, Median: 2, Max: 3}) {
		t.Errorf("calls per item %+v", all.CallsPerItem)
	}
	if all.StepsPerItem == nil || *all.StepsPerItem != (report.Spread{Mean: 3, Median: 3, Max: 5}) {
		t.Errorf("steps per item %+v", all.StepsPerItem)
	}
	if rows[0].CallsPerItem != nil || rows[1].StepsPerItem != nil {
		t.Error("a tool's row carries the per-item spreads")
	}
	for _, bad := range []string{``, `garbage`, `[1, "x", null]`, `{"id": 1, "server": "s", "tool": "t", "latency_ms": 2}`} {
		if c := ToolCalls(json.RawMessage(bad)); c != nil {
			t.Errorf("ToolCalls(%q) = %+v", bad, c)
		}
	}
	if _, err := ToolRows(context.Background(), closedStore(t), []store.Run{withTools}); err == nil {
		t.Error("a closed store gave tool rows")
	}
}

// closedStore is a store already closed: every read fails.
func closedStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "closed.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return st
}
