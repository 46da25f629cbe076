package otlp

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tools"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// canary is an API key the run uses: it must appear in no span.
const canary = "sk-canary-0f3e9d2c7b1a4e5f"

// Span is a span as OTLP/JSON writes it.
type Span struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Kind         int    `json:"kind"`
	Start        string `json:"startTimeUnixNano"`
	End          string `json:"endTimeUnixNano"`
	Attributes   []struct {
		Key   string `json:"key"`
		Value struct {
			String *string          `json:"stringValue"`
			Int    *json.RawMessage `json:"intValue"`
			Double *float64         `json:"doubleValue"`
			Bool   *bool            `json:"boolValue"`
		} `json:"value"`
	} `json:"attributes"`
	Status struct {
		Code int `json:"code"`
	} `json:"status"`
}

// Attr is an attribute's value as text.
func (s Span) Attr(key string) string {
	for _, a := range s.Attributes {
		if a.Key != key {
			continue
		}
		switch v := a.Value; {
		case v.String != nil:
			return *v.String
		case v.Int != nil:
			return strings.Trim(string(*v.Int), `"`)
		case v.Double != nil:
			return strconv.FormatFloat(*v.Double, 'g', -1, 64)
		case v.Bool != nil:
			return strconv.FormatBool(*v.Bool)
		}
	}
	return ""
}

// Nanos is the span's duration in nanoseconds.
func (s Span) Nanos() int64 {
	a, _ := strconv.ParseInt(s.Start, 10, 64)
	b, _ := strconv.ParseInt(s.End, 10, 64)
	return b - a
}

// readSpans reads OTLP/JSON lines.
func readSpans(t *testing.T, b []byte) []Span {
	t.Helper()
	var out []Span
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []json.RawMessage `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []Span `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("a line that is not OTLP/JSON: %v: %.300s", err, line)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// reactRun runs ReAct with an MCP server's tools over HTTP with the
// canary key, and returns the store and the run.
func reactRun(t *testing.T) (*store.Store, store.Run) {
	t.Helper()
	_, ts := toolstest.HTTP("1.0")
	t.Cleanup(ts.Close)
	p := bench.DefaultConfig().Sim
	p.Skill, p.Slip = 1, 0 // the simulated tool user picks get-sum
	m, err := bench.NewSim(p)
	if err != nil {
		t.Fatal(err)
	}
	model := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{}))
	t.Cleanup(model.Close)
	dir := t.TempDir()
	q := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(q, []byte(`{"question": "What is the sum of 12 and 30?", "answer": "42"}`+"\n"+
		`{"question": "What is the sum of 7 and 8?", "answer": "15"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "o.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := bench.DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = "file:"+q, "react", "0:2", map[string]any{"protocol": "tools"}
	cfg.Model, cfg.BaseURL, cfg.APIKey = bench.SimModel, model.URL+"/v1", canary
	cfg.MCP = []tools.Server{{Name: "calc", URL: ts.URL}}
	sum, err := (&bench.Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return st, run
}

// TestExportReActTrace: a ReAct run with MCP tool calls exports as one
// trace: the run's span over its items', an item's over its steps', and a
// span per model call (chat, its role, model, tokens, latency as its
// duration) and per tool call (execute_tool, server, tool, arguments,
// result), each under its step; the same bytes on a second export; no key
// anywhere.
func TestExportReActTrace(t *testing.T) {
	st, run := reactRun(t)
	var buf bytes.Buffer
	exp, err := FileExporter(context.Background(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := Export(context.Background(), st, []store.Run{run}, exp); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(canary)) {
		t.Fatal("the canary key is in the trace")
	}
	spans := readSpans(t, buf.Bytes())
	byID := map[string]Span{}
	for _, s := range spans {
		if len(s.TraceID) != 32 || len(s.SpanID) != 16 {
			t.Fatalf("span %q: ids %q %q are not hex", s.Name, s.TraceID, s.SpanID)
		}
		if _, err := hex.DecodeString(s.SpanID); err != nil {
			t.Fatal(err)
		}
		byID[s.SpanID] = s
	}
	calls, err := st.Calls(context.Background(), run.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	callByID := map[string]store.Call{}
	for _, c := range calls {
		callByID[strconv.FormatInt(c.ID, 10)] = c
	}
	evs, err := st.RunEvents(context.Background(), run.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	tools := 0
	for _, item := range evs {
		for _, e := range item {
			if e.Kind == events.Tool {
				tools++
			}
		}
	}
	parentName := func(s Span) string { return byID[s.ParentSpanID].Name }
	count := map[string]int{}
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.Name, "run "):
			count["run"]++
			if s.ParentSpanID != "" || s.Attr("reasonbench.run.id") != strconv.FormatInt(run.ID, 10) {
				t.Errorf("run span %+v", s)
			}
		case strings.HasPrefix(s.Name, "item "):
			count["item"]++
			if !strings.HasPrefix(parentName(s), "run ") || s.Attr("reasonbench.verdict.correct") != "true" {
				t.Errorf("item span %q under %q, correct %q", s.Name, parentName(s), s.Attr("reasonbench.verdict.correct"))
			}
		case strings.HasPrefix(s.Name, "step "):
			count["step"]++
			if !strings.HasPrefix(parentName(s), "item ") {
				t.Errorf("step span %q under %q", s.Name, parentName(s))
			}
		case strings.HasPrefix(s.Name, "chat "):
			count["model"]++
			c, ok := callByID[s.Attr("reasonbench.call.record")]
			if !ok {
				t.Fatalf("model span %q names no call record", s.Name)
			}
			if s.Name != "chat "+bench.SimModel || s.Kind != 3 || s.Attr("gen_ai.operation.name") != "chat" || s.Attr("gen_ai.request.model") != bench.SimModel ||
				s.Attr("reasonbench.role") != "model" || s.Attr("gen_ai.usage.input_tokens") != strconv.Itoa(c.PromptTokens) ||
				s.Attr("gen_ai.usage.output_tokens") != strconv.Itoa(c.CompletionTokens) || s.Attr("reasonbench.call") != c.Identity ||
				parentName(s) != "step "+c.Step || s.Nanos() != c.Latency.Nanoseconds() {
				t.Errorf("model span %+v under %q (%d ns), its call %+v", s, parentName(s), s.Nanos(), c)
			}
		case strings.HasPrefix(s.Name, "execute_tool "):
			count["tool"]++
			if s.Name != "execute_tool get-sum" || s.Attr("gen_ai.operation.name") != "execute_tool" || s.Attr("gen_ai.tool.name") != "get-sum" ||
				s.Attr("reasonbench.tool.server") != "calc" || !json.Valid([]byte(s.Attr("gen_ai.tool.call.arguments"))) ||
				!strings.HasPrefix(s.Attr("gen_ai.tool.call.result"), "The sum of") || !strings.HasPrefix(parentName(s), "step t0/s") ||
				s.Nanos() <= 0 || s.Attr("reasonbench.tool.replayed") != "false" {
				t.Errorf("tool span %+v under %q", s, parentName(s))
			}
		default:
			t.Errorf("unexpected span %q", s.Name)
		}
	}
	if count["run"] != 1 || count["item"] != 2 || count["model"] != len(calls) || count["tool"] != tools || tools != 2 || count["step"] != 4 {
		t.Errorf("spans by kind %v; %d calls and %d tool calls stored", count, len(calls), tools)
	}
	// The same run exports the same bytes.
	var again bytes.Buffer
	exp, _ = FileExporter(context.Background(), &again)
	if err := Export(context.Background(), st, []store.Run{run}, exp); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("a second export differs from the first")
	}
}

// TestHTTPExporter: the same spans go to an OTLP/HTTP receiver as
// protobuf, the traces path added to a bare URL; a receiver's refusal is
// Export's error, not a silent loss.
func TestHTTPExporter(t *testing.T) {
	st, run := reactRun(t)
	var mu sync.Mutex
	var got int
	var paths []string
	refuse := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, r.URL.Path)
		if refuse {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		var req collector.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				got += len(ss.Spans)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&collector.ExportTraceServiceResponse{})
		w.Write(out)
	}))
	defer srv.Close()
	exp, err := HTTPExporter(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := Export(context.Background(), st, []store.Run{run}, exp); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	fexp, _ := FileExporter(context.Background(), &file)
	if err := Export(context.Background(), st, []store.Run{run}, fexp); err != nil {
		t.Fatal(err)
	}
	if want := len(readSpans(t, file.Bytes())); got != want || len(paths) == 0 || paths[0] != "/v1/traces" {
		t.Errorf("the receiver got %d spans at %v, the file has %d", got, paths, want)
	}
	refuse = true
	exp, _ = HTTPExporter(context.Background(), srv.URL+"/v1/traces")
	if err := Export(context.Background(), st, []store.Run{run}, exp); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a refusing receiver: %v", err)
	}
	for _, bad := range []string{"127.0.0.1:4318", "ftp://x/", ""} {
		if _, err := HTTPExporter(context.Background(), bad); err == nil {
			t.Errorf("endpoint %q accepted", bad)
		}
	}
}

func ExampleFileExporter() {
	exp, err := FileExporter(context.Background(), io.Discard)
	fmt.Println(exp != nil, err)
	// Output: true <nil>
}
