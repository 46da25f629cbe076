package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/reasonbench/reasonbench/store"
)

// readParquet reads a file back with the library: its columns' physical
// and logical types by name, and its rows.
func readParquet(t *testing.T, path string) (map[string]string, []map[string]any) {
	t.Helper()
	f, err := parquet.OpenFile(openFile(t, path))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	types := map[string]string{}
	for _, field := range f.Schema().Fields() {
		typ := field.Type().String()
		if field.Optional() {
			typ = "optional " + typ
		}
		types[field.Name()] = typ
	}
	r := parquet.NewGenericReader[map[string]any](f, f.Schema())
	defer r.Close()
	rows := make([]map[string]any, f.NumRows())
	for i := range rows {
		rows[i] = map[string]any{}
	}
	if n, err := r.Read(rows); n != len(rows) || (err != nil && !errors.Is(err, io.EOF)) {
		t.Fatalf("read %s: %d of %d rows: %v", path, n, len(rows), err)
	}
	return types, rows
}

// TestExportParquet exports runs of the fixture database (ToT, Reflexion,
// a stopped Reflexion run with costs) and reads the three files back:
// typed columns, one per parameter and metric, and the store's values.
func TestExportParquet(t *testing.T) {
	t.Parallel()
	db := copyFixture(t)
	out := filepath.Join(t.TempDir(), "pq")
	if code, _, stderr := cli(t, "export", "1", "4", "9", "--format", "parquet", "--out", out, "--db", db); code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	types, runs := readParquet(t, filepath.Join(out, "runs.parquet"))
	for col, want := range map[string]string{
		"run_id": "INT(64,true)", "simulated": "BOOLEAN", "accuracy": "DOUBLE", "cost": "DOUBLE", "calls": "INT(64,true)",
		"task": "STRING", "started_at": "TIMESTAMP(isAdjustedToUTC=true,unit=MICROS)",
		"param_b": "optional INT(64,true)", "param_temperature": "optional DOUBLE", "param_actor": "optional STRING",
		"metric_any_at_b": "optional DOUBLE", "metric_em": "optional DOUBLE",
	} {
		if types[col] != want {
			t.Errorf("runs.%s: type %q, want %q", col, types[col], want)
		}
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	byID := map[int64]map[string]any{}
	for _, r := range runs {
		byID[r["run_id"].(int64)] = r
	}
	if r := byID[1]; r["strategy"] != "tot" || r["param_b"] != int64(2) || r["param_actor"] != nil || r["metric_any_at_b"] != 0.75 ||
		r["calls"] != int64(101) {
		t.Errorf("run 1 row: %v", r)
	}
	if r := byID[4]; r["param_actor"] != "react" || r["param_b"] != nil || r["metric_em"] != 1.0 {
		t.Errorf("run 4 row: %v", r)
	}
	run9, _ := st.GetRun(ctx, 9)
	tot9, _ := st.Totals(ctx, 9)
	if r := byID[9]; r["status"] != "stopped" || r["cost"] != tot9.Cost || tot9.Cost == 0 {
		t.Errorf("run 9 row: %v (cost %v)", r, tot9.Cost)
	}
	// A timestamp column holds microseconds since 1970 (pandas: datetime64).
	if got := byID[9]["started_at"]; got != run9.StartedAt.UnixMicro() {
		t.Errorf("run 9 started_at %v, want %v", got, run9.StartedAt.UnixMicro())
	}

	types, items := readParquet(t, filepath.Join(out, "items.parquet"))
	if types["correct"] != "BOOLEAN" || types["score"] != "DOUBLE" || types["metric_top1"] != "optional DOUBLE" {
		t.Errorf("items types: %v", types)
	}
	want := 0
	for _, id := range []int64{1, 4, 9} {
		its, _ := st.Items(ctx, id)
		want += len(its)
	}
	if len(items) != want {
		t.Errorf("%d items, want %d", len(items), want)
	}

	types, calls := readParquet(t, filepath.Join(out, "calls.parquet"))
	if types["cache_hit"] != "BOOLEAN" || types["latency_ms"] != "DOUBLE" || types["prompt_tokens"] != "INT(64,true)" ||
		types["request"] != "STRING" {
		t.Errorf("calls types: %v", types)
	}
	stored := map[string]store.Call{}
	for _, id := range []int64{1, 4, 9} {
		cs, _ := st.Calls(ctx, id, -1)
		for _, c := range cs {
			stored[fmt.Sprint(c.RunID, "/", c.ID)] = c
		}
	}
	if len(calls) != len(stored) {
		t.Fatalf("%d calls, want %d", len(calls), len(stored))
	}
	hits := 0
	for _, c := range calls {
		s, ok := stored[fmt.Sprint(c["run_id"], "/", c["call_id"])]
		if !ok {
			t.Fatalf("call %v/%v not in the store", c["run_id"], c["call_id"])
		}
		if c["request"] != string(s.Request) || c["response"] != string(s.Response) || c["purpose"] != s.Purpose ||
			c["prompt_tokens"] != int64(s.PromptTokens) || c["cost"] != s.Cost || c["item_idx"] != int64(s.Item) ||
			c["latency_ms"] != float64(s.Latency.Microseconds())/1000 {
			t.Fatalf("call %v/%v differs from the store:\n%v\n%+v", c["run_id"], c["call_id"], c, s)
		}
		if c["cache_hit"] == true {
			hits++
		}
	}
	if hits == 0 {
		t.Error("no cache hits exported; runs 1 and 9 have some")
	}
}

func openFile(t *testing.T, path string) (*os.File, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return f, fi.Size()
}
