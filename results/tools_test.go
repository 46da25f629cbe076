package results

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
)

// TestToolRowsFromEvents: the tool table counts each item's tool events
// per server and tool (calls, errors, replays, latency quantiles, calls per
// item including items without any), whatever the item's detail holds.
func TestToolRowsFromEvents(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.CreateRun(ctx, store.Run{Task: "file:q.jsonl", Strategy: "react", Model: "m", Range: "0:3"})
	if err != nil {
		t.Fatal(err)
	}
	tool := func(name, errText string, ms float64, cached bool) events.Event {
		return events.Event{Kind: events.Tool, Call: "e/" + name + "/x#0", Server: "e", Tool: name, Error: errText, LatencyMS: ms, Cached: cached}
	}
	perItem := [][]events.Event{
		{tool("get-sum", "", 10, false), tool("get-sum", "boom", 30, false), {Kind: events.Verdict}},
		{tool("get-sum", "", 20, true), tool("echo", "", 5, false)},
		{{Kind: events.User, Text: "no tools here"}},
	}
	for i, evs := range perItem {
		log := st.CallLog(id, i)
		for _, e := range evs {
			log.Events().Record(ctx, e)
		}
		if err := log.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// A detail shaped like a tool call record counts for nothing.
		detail := `{"tool_call":{"id":"e/x/y#0","server":"e","tool":"x","latency_ms":1}}`
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Input: "q", Detail: []byte(detail),
			Metrics: map[string]float64{"steps": float64(i + 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	run, err := st.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ToolRows(ctx, st, []store.Run{run})
	if err != nil {
		t.Fatal(err)
	}
	type fig struct {
		server, tool                   string
		calls, errs, replayed          int
		success, mean, p50, p90        float64
		perItemMedian, perItemMax, sps float64
	}
	var got []fig
	for _, r := range rows {
		f := fig{server: r.Server, tool: r.Tool, calls: r.Calls, errs: r.Errors, replayed: r.Replayed, success: r.Success,
			mean: r.LatencyMS, p50: r.P50MS, p90: r.P90MS}
		if r.CallsPerItem != nil {
			f.perItemMedian, f.perItemMax, f.sps = r.CallsPerItem.Median, r.CallsPerItem.Max, r.StepsPerItem.Mean
		}
		got = append(got, f)
	}
	want := []fig{
		{server: "e", tool: "echo", calls: 1, success: 1, mean: 5, p50: 5, p90: 5},
		{server: "e", tool: "get-sum", calls: 3, errs: 1, replayed: 1, success: 2.0 / 3, mean: 20, p50: 20, p90: 30},
		{tool: "(all)", calls: 4, errs: 1, replayed: 1, success: 0.75, mean: 16.25, p50: 10, p90: 30, perItemMedian: 2, perItemMax: 2, sps: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n%+v\nwant\n%+v", got, want)
	}
}

func TestByStep(t *testing.T) {
	evs := []events.Event{
		{Kind: events.Model, Step: ""}, {Kind: events.Model, Step: "t0/s1"}, {Kind: events.Tool, Step: "t0/s1"},
		{Kind: events.Model, Step: "t0/s2"}, {Kind: events.Verdict},
	}
	var got []string
	for _, s := range ByStep(evs) {
		got = append(got, s.Step+":"+string(rune('0'+len(s.Events))))
	}
	if want := []string{":1", "t0/s1:2", "t0/s2:1", ":1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}
