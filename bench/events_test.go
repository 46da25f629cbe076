package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tools"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// canonical drops what may differ between two runs of one configuration
// (latency, cache hits and replays, the store's call ids): what is left is
// identical at any concurrency and on a rerun from the cache.
func canonical(evs []events.Event) []events.Event {
	out := make([]events.Event, len(evs))
	for i, e := range evs {
		e.LatencyMS, e.Cached, e.CallID, e.Time = 0, false, 0, time.Time{}
		out[i] = e
	}
	return out
}

func runEvents(t *testing.T, st *store.Store, cfg Config) (Summary, map[int][]events.Event) {
	t.Helper()
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.RunEvents(context.Background(), sum.RunID, true)
	if err != nil {
		t.Fatal(err)
	}
	return sum, evs
}

// TestItemEventsReActWithTools: a ReAct run with MCP tools records, per
// item and in order, each turn's model call (role, identity, tokens) and
// tool call (server, tool, arguments, result, latency) under the turn's
// step (the finish tool is the task's: no event), then the verdict; the same events at another concurrency, and on a
// rerun from the cache with every model call a cache hit and every tool
// call replayed.
func TestItemEventsReActWithTools(t *testing.T) {
	t.Parallel()
	httpSrv, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	dir := t.TempDir()
	var q strings.Builder
	for i := range 4 {
		fmt.Fprintf(&q, `{"question": "What is the sum of %d and %d?", "answer": "%d"}`+"\n", 10+i, 3*i+1, 10+i+3*i+1)
	}
	path := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(path, []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "file:"+path, "react", "0:4", 4
	cfg.Params = map[string]any{"protocol": "tools"}
	cfg.MCP = []tools.Server{{Name: "calc", URL: ts.URL}}
	cfg.Sim.Skill, cfg.Sim.Slip = 1, 0 // the simulated tool user picks get-sum, never the server's crash tool
	st := tempStore(t)
	sum, first := runEvents(t, st, cfg)
	if sum.Accuracy != 1 || len(first) != 4 {
		t.Fatalf("accuracy %v, events of %d items", sum.Accuracy, len(first))
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := st.Calls(context.Background(), sum.RunID, -1)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]store.Call{}
	for _, c := range calls {
		byID[c.ID] = c
	}
	for _, it := range items {
		evs := first[it.Index]
		var kinds []string
		for _, e := range evs {
			kinds = append(kinds, e.Kind.String()+"@"+e.Step)
		}
		if got := strings.Join(kinds, " "); got != "model@t0/s1 tool@t0/s1 model@t0/s2 verdict@" {
			t.Fatalf("item %d events: %s", it.Index, got)
		}
		m, tool, v := evs[0], evs[1], evs[3]
		c := byID[m.CallID]
		if m.Role != "model" || m.Call != "t0/s1/react" || m.Seq != 0 || m.Purpose != "react" || m.PromptTokens != c.PromptTokens ||
			m.PromptTokens == 0 || m.CompletionTokens != c.CompletionTokens || m.LatencyMS != float64(c.Latency.Microseconds())/1000 || m.Cached {
			t.Errorf("item %d model call event %+v, its call %+v", it.Index, m, c)
		}
		if tool.Server != "calc" || tool.Tool != "get-sum" || tool.Seq != 1 || !strings.HasPrefix(tool.Call, "calc/get-sum/") ||
			!json.Valid(tool.Arguments) || !strings.HasPrefix(tool.Result, "The sum of") || tool.LatencyMS <= 0 || tool.Cached || tool.Error != "" {
			t.Errorf("item %d tool event %+v", it.Index, tool)
		}
		if !v.Correct || v.Score != it.Score || v.Answer == "" {
			t.Errorf("item %d verdict %+v, item score %v", it.Index, v, it.Score)
		}
	}
	before := httpSrv.Calls()
	cfg.Concurrency = 1
	_, again := runEvents(t, st, cfg)
	if httpSrv.Calls() != before {
		t.Errorf("the rerun called the server %d times", httpSrv.Calls()-before)
	}
	for i, evs := range again {
		for _, e := range evs {
			if (e.Kind == events.Model || e.Kind == events.Tool) && !e.Cached {
				t.Errorf("rerun item %d: %s %s not from the cache", i, e.Kind, e.Call)
			}
		}
		if !reflect.DeepEqual(canonical(evs), canonical(first[i])) {
			t.Errorf("rerun item %d events differ:\n%+v\n%+v", i, evs, first[i])
		}
	}
}

// TestItemEventsVerifierScores: a bon item records each candidate's
// verifier scores at its call identity (s<i>/verify), the scores the
// item's detail keeps, and the verifier's model calls under the verifier
// role; the same at concurrency 1 and 8.
func TestItemEventsVerifierScores(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "gsm8k", "bon", "0:3", 8
	cfg.Params = map[string]any{"n": 4, "temperature": 0.7}
	st := tempStore(t)
	sum, first := runEvents(t, st, cfg)
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		var d reading.TTSDetail
		if err := json.Unmarshal(it.Detail, &d); err != nil {
			t.Fatal(err)
		}
		scores := map[string][]float64{}
		roles := map[string]int{}
		for _, e := range first[it.Index] {
			switch e.Kind {
			case events.Verifier:
				scores[e.Call] = e.Scores
			case events.Model:
				roles[e.Role]++
			}
		}
		if len(scores) != len(d.Candidates) || roles["model"] != 1 || roles["verifier"] != len(d.Candidates) {
			t.Fatalf("item %d: %d verifier events for %d candidates, model calls by role %v", it.Index, len(scores), len(d.Candidates), roles)
		}
		for i, c := range d.Candidates {
			if got := scores[fmt.Sprintf("s%d/verify", i)]; !reflect.DeepEqual(got, []float64(c.Scores)) {
				t.Errorf("item %d candidate %d: event scores %v, detail %v", it.Index, i, got, c.Scores)
			}
		}
	}
	cfg.Concurrency = 1
	cfg.Cache = "off"
	_, again := runEvents(t, st, cfg)
	for i := range first {
		if !reflect.DeepEqual(canonical(again[i]), canonical(first[i])) {
			t.Errorf("item %d events at concurrency 1 differ:\n%+v\n%+v", i, again[i], first[i])
		}
	}
}
