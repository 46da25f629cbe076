package view

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
)

// TestRunPageToolTable: a run whose items called MCP tools shows, per
// tool, its calls, errors, cache replays and latency, from the items' tool
// events; a run without tool calls shows no tool table.
func TestRunPageToolTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tools.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateRun(ctx, store.Run{Task: "file:q.jsonl", Strategy: "react", Model: "m", Range: "0:2"})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "cot", Model: "m", Range: "0:1"})
	if err != nil {
		t.Fatal(err)
	}
	call := func(tool, errText string, ms float64, cached bool) events.Event {
		return events.Event{Kind: events.Tool, Call: "everything/" + tool + "/x#0", Server: "everything", Tool: tool,
			Arguments: []byte(`{}`), Result: "r", Error: errText, LatencyMS: ms, Cached: cached}
	}
	items := [][]events.Event{
		{call("get-sum", "", 10, false), call("get-sum", "boom", 30, false)},
		{call("get-sum", "", 20, true), call("echo", "", 5, false)},
	}
	for i, evs := range items {
		log := st.CallLog(id, i)
		for _, e := range evs {
			log.Events().Record(ctx, e)
		}
		if err := log.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Input: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutItem(ctx, store.Item{RunID: plain, Index: 0, Input: "q"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	srv := serveReadOnly(t, path)

	code, body := get(t, srv.URL+"/runs/"+formatInt(id))
	row := func(tool string) string {
		m := regexp.MustCompile(`<tr><td>[^<]*</td><td>` + regexp.QuoteMeta(tool) + `</td>(.*?)</tr>`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return regexp.MustCompile(`<[^>]+>`).ReplaceAllString(strings.ReplaceAll(m[1], "</td><td", "</td> <td"), "")
	}
	// get-sum: 3 calls, 1 error, 66.7% success, 1 replayed, mean 20 ms, p50 20, p90 30.
	for tool, want := range map[string]string{
		"get-sum": "3 1 66.7% 1 20.0 20.0 30.0",
		"echo":    "1 0 100.0% 0 5.0 5.0 5.0",
		"(all)":   "4 1 75.0% 1 16.2 10.0 30.0 2.00 (2, 2)",
	} {
		if got := strings.TrimSpace(row(tool)); code != 200 || got != want {
			t.Errorf("tool %s: row %q, want %q (status %d)", tool, got, want, code)
		}
	}
	if _, body := get(t, srv.URL+"/runs/"+formatInt(plain)); strings.Contains(body, `id="tools"`) {
		t.Error("a run without tool calls shows a tool table")
	}
}
