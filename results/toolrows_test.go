package results

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

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
