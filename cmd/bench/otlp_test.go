package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// jaegerAt is where the test reads Jaeger: the endpoints
// scripts/jaeger/local-jaeger.sh starts it on (RB_JAEGER_OTLP,
// RB_JAEGER_QUERY), loopback only.
func jaegerAt() (otlp, query string) {
	otlp, query = os.Getenv("RB_JAEGER_OTLP"), os.Getenv("RB_JAEGER_QUERY")
	if otlp == "" {
		otlp = "127.0.0.1:4318"
	}
	if query == "" {
		query = "127.0.0.1:16686"
	}
	return "http://" + otlp, "http://" + query
}

// requireJaeger skips the test unless Jaeger's query API answers; with
// BENCH_REQUIRE_OTLP=1 (CI) it fails instead.
func requireJaeger(t *testing.T) (otlp, query string) {
	t.Helper()
	if testing.Short() {
		t.Skip("exports traces to Jaeger")
	}
	otlp, query = jaegerAt()
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(query + "/api/services")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return otlp, query
		}
		err = fmt.Errorf("status %s", resp.Status)
	}
	if os.Getenv("BENCH_REQUIRE_OTLP") == "1" {
		t.Fatalf("BENCH_REQUIRE_OTLP=1 but Jaeger's query API at %s does not answer (%v); start it with scripts/jaeger/local-jaeger.sh start", query, err)
	}
	t.Skipf("no Jaeger at %s (%v): scripts/jaeger/local-jaeger.sh start runs one", query, err)
	return "", ""
}

// jaegerSpan is a span as Jaeger's query API returns it.
type jaegerSpan struct {
	SpanID     string `json:"spanID"`
	Operation  string `json:"operationName"`
	References []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Duration int64 `json:"duration"` // microseconds
	Tags     []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			if f, ok := t.Value.(float64); ok {
				return strconv.FormatFloat(f, 'f', -1, 64)
			}
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

// TestOTLPExportToJaeger: a ReAct run with MCP tool calls, made with an
// API key, exported by bench export --otlp-endpoint to a real Jaeger reads
// back through Jaeger's query API as one trace: a span per model call and
// per tool call, each under its step's span, under its item's, under the
// run's; each model call's tokens and latency its record's, each tool
// call's server and tool; the key in no span.
func TestOTLPExportToJaeger(t *testing.T) {
	otlpURL, query := requireJaeger(t)
	t.Parallel()
	srv, _ := countingSim(t)
	_, tools := toolstest.HTTP("1.0")
	defer tools.Close()
	dir := t.TempDir()
	q := sumsFile(t, dir, 3)
	db := filepath.Join(dir, "o.db")
	const key = "sk-canary-otlp-5d1f0e7a9c2b"
	code, out, stderr := cli(t, "run", "--db", db, "--base-url", srv.URL+"/v1", "--api-key", key, "--task", "file:"+q, "--strategy", "react",
		"--set", "protocol=tools", "--mcp", "calc="+tools.URL, "--concurrency", "3", "--json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var sum struct {
		RunID int64 `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.RunID == 0 {
		t.Fatalf("run summary %q: %v", out, err)
	}
	file := filepath.Join(dir, "trace.jsonl")
	if code, _, stderr := cli(t, "export", fmt.Sprint(sum.RunID), "--db", db, "--otlp", file, "--otlp-endpoint", otlpURL); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					TraceID string `json:"traceId"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &first); err != nil || len(first.ResourceSpans) == 0 {
		t.Fatalf("the OTLP/JSON file: %v", err)
	}
	traceID := strings.ToLower(first.ResourceSpans[0].ScopeSpans[0].Spans[0].TraceID)

	// What the store holds: the calls and tool events to find.
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	calls, err := st.Calls(ctx, sum.RunID, -1)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.RunEvents(ctx, sum.RunID, false)
	if err != nil {
		t.Fatal(err)
	}
	var toolEvents []events.Event
	for _, item := range evs {
		for _, e := range item {
			if e.Kind == events.Tool {
				toolEvents = append(toolEvents, e)
			}
		}
	}
	want := 1 + 3 + len(calls) + len(toolEvents) // run, items, calls, tools; and steps

	// Jaeger stores what it receives a moment later.
	var raw []byte
	var spans []jaegerSpan
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		resp, err := http.Get(query + "/api/traces/" + traceID)
		if err == nil {
			raw, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			var got struct {
				Data []struct {
					Spans []jaegerSpan `json:"spans"`
				} `json:"data"`
			}
			if json.Unmarshal(raw, &got) == nil && len(got.Data) == 1 {
				spans = got.Data[0].Spans
			}
		}
		if len(spans) >= want || time.Now().After(deadline) {
			break
		}
	}
	if strings.Contains(string(raw), key) || strings.Contains(string(b), key) {
		t.Fatal("the API key is in a span")
	}
	byID := map[string]jaegerSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	op := func(id string) string { return byID[id].Operation }
	callByID := map[string]store.Call{}
	for _, c := range calls {
		callByID[strconv.FormatInt(c.ID, 10)] = c
	}
	models, tools2 := 0, 0
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.Operation, "chat "):
			models++
			c, ok := callByID[s.tag("reasonbench.call.record")]
			step := byID[s.parent()]
			if !ok || step.Operation != "step "+c.Step || !strings.HasPrefix(op(step.parent()), "item ") ||
				!strings.HasPrefix(op(byID[step.parent()].parent()), "run ") {
				t.Errorf("model span %s (call %v) under %q", s.Operation, ok, step.Operation)
				continue
			}
			if s.tag("gen_ai.usage.input_tokens") != strconv.Itoa(c.PromptTokens) || s.tag("gen_ai.usage.output_tokens") != strconv.Itoa(c.CompletionTokens) ||
				s.tag("reasonbench.role") != "model" || s.tag("gen_ai.operation.name") != "chat" ||
				math.Abs(float64(s.Duration-c.Latency.Microseconds())) > 1 {
				t.Errorf("model span %s: tokens %s/%s, %d µs; its call %d/%d, %d µs", s.Operation, s.tag("gen_ai.usage.input_tokens"),
					s.tag("gen_ai.usage.output_tokens"), s.Duration, c.PromptTokens, c.CompletionTokens, c.Latency.Microseconds())
			}
		case strings.HasPrefix(s.Operation, "execute_tool "):
			tools2++
			if s.Operation != "execute_tool get-sum" || s.tag("reasonbench.tool.server") != "calc" || s.tag("gen_ai.tool.name") != "get-sum" ||
				!strings.HasPrefix(op(s.parent()), "step t0/s") || s.Duration <= 0 || !strings.HasPrefix(s.tag("gen_ai.tool.call.result"), "The sum of") {
				t.Errorf("tool span %s under %q: %+v", s.Operation, op(s.parent()), s.Tags)
			}
		}
	}
	if models != len(calls) || tools2 != len(toolEvents) || len(toolEvents) != 3 {
		t.Errorf("Jaeger holds %d model and %d tool spans of %d; the run made %d model and %d tool calls", models, tools2, len(spans), len(calls), len(toolEvents))
	}
}
