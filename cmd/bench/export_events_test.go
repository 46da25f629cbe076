package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// TestExportEvents: bench export writes each item's events in its order,
// in the JSON lines (as store.ItemEvents reads them) and as events.parquet
// (one row an event); bench show prints the conversation and the events.
func TestExportEvents(t *testing.T) {
	t.Parallel()
	srv, _ := countingSim(t)
	_, tools := toolstest.HTTP("1.0")
	defer tools.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	code, out, stderr := cli(t, "run", "--db", db, "--base-url", srv.URL+"/v1", "--task", "file:"+sumsFile(t, dir, 2), "--strategy", "react",
		"--set", "protocol=tools", "--mcp", "calc="+tools.URL, "--json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var sum struct {
		RunID int64 `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.RunEvents(context.Background(), sum.RunID, true)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = cli(t, "export", "--db", db, fmt.Sprint(sum.RunID))
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	sc.Scan() // the run
	items := 0
	for sc.Scan() {
		var it struct {
			Index  int            `json:"idx"`
			Events []events.Event `json:"events"`
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		items++
		want := stored[it.Index]
		for i := range want {
			want[i].Time = want[i].Time.UTC()
			// The export numbers an item's calls in the order of their
			// identities (t0/s1/react is 1, t0/s2/react 2) in place of
			// the store's record ids.
			if want[i].CallID != 0 {
				var step int
				if _, err := fmt.Sscanf(want[i].Call, "t0/s%d/react", &step); err != nil {
					t.Fatalf("model call %q: %v", want[i].Call, err)
				}
				want[i].CallID = int64(step)
			}
		}
		for i := range it.Events {
			it.Events[i].Time = it.Events[i].Time.UTC()
		}
		if len(want) < 4 || !reflect.DeepEqual(it.Events, want) {
			t.Errorf("item %d exported events:\n%+v\nstored:\n%+v", it.Index, it.Events, want)
		}
	}
	if items != 2 {
		t.Errorf("%d items exported", items)
	}
	pq := filepath.Join(dir, "pq")
	if code, _, stderr := cli(t, "export", "--db", db, fmt.Sprint(sum.RunID), "--format", "parquet", "--out", pq); code != 0 {
		t.Fatalf("parquet: exit %d: %s", code, stderr)
	}
	types, rows := readParquet(t, filepath.Join(pq, "events.parquet"))
	if types["kind"] != "STRING" || types["latency_ms"] != "DOUBLE" || types["call_id"] != "optional INT(64,true)" {
		t.Errorf("events.parquet types %v", types)
	}
	n := 0
	for _, evs := range stored {
		n += len(evs)
	}
	tools2 := 0
	for _, r := range rows {
		if r["kind"] == "tool" {
			tools2++
			if r["server"] != "calc" || r["tool"] != "get-sum" || r["call_id"] != nil {
				t.Errorf("tool row %v", r)
			}
		}
		if r["kind"] == "model" && (r["call_id"] == nil || r["role"] != "model") {
			t.Errorf("model row %v", r)
		}
	}
	if len(rows) != n || tools2 != 2 {
		t.Errorf("%d event rows (%d tool calls), %d events stored", len(rows), tools2, n)
	}
	code, out, _ = cli(t, "show", "--db", db, "--item", "0", fmt.Sprint(sum.RunID))
	for _, s := range []string{"conversation:\ntrajectory (finished):", "tool [step 1]: calc get-sum {", "events (", "tool call calc get-sum", "verdict correct"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("bench show lacks %q:\n%s", s, out)
		}
	}
}
