package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// fakeSampler answers deterministically: choice i of a request with seed s
// is a function of s+i and the last message only, so a request for n
// choices and n requests for one choice each give identical results.
type fakeSampler struct {
	mu   sync.Mutex
	reqs []Request
	err  error
	// choices, when set, caps how many choices are returned for n asked.
	choices func(n int) int
}

func (f *fakeSampler) Sample(ctx context.Context, req Request) (Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.err != nil {
		return Response{}, f.err
	}
	n := req.Samples()
	if f.choices != nil {
		n = f.choices(n)
	}
	last := req.Messages[len(req.Messages)-1]
	out := Response{Usage: Usage{PromptTokens: 10 * len(req.Messages), CompletionTokens: 5 * n, Requests: 1}}
	for i := range n {
		seed := req.Seed + int64(i)
		var c Choice
		switch {
		case len(req.Tools) > 0 && last.Role == "user":
			c.ToolCalls = []ToolCall{{ID: fmt.Sprintf("call_%d", seed), Name: req.Tools[0].Name, Arguments: fmt.Sprintf(`{"seed":%d}`, seed)}}
		case last.Role == "tool":
			c.Content = fmt.Sprintf("tool %s said %s", last.ToolCallID, last.Content)
		default:
			c.Content = fmt.Sprintf("choice seed=%d echo=%s", seed, last.Content)
			c.Reasoning = fmt.Sprintf("thinking %d", seed)
		}
		out.Choices = append(out.Choices, c)
	}
	return out, nil
}

func (f *fakeSampler) requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.reqs...)
}

// bodyRecorder wraps a handler and keeps the raw request bodies.
type bodyRecorder struct {
	next   http.Handler
	mu     sync.Mutex
	bodies [][]byte
	auth   []string
}

func (b *bodyRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.bodies = append(b.bodies, body)
	b.auth = append(b.auth, r.Header.Get("Authorization"))
	b.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	b.next.ServeHTTP(w, r)
}

func (b *bodyRecorder) last(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.bodies[len(b.bodies)-1], &m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

type testBackend struct {
	fake   *fakeSampler
	server *Server
	rec    *bodyRecorder
	client *OpenAI
	url    string
}

func newTestBackend(t *testing.T, o ServerOptions) *testBackend {
	t.Helper()
	tb := &testBackend{fake: &fakeSampler{}}
	tb.server = NewServer(tb.fake, o)
	tb.rec = &bodyRecorder{next: tb.server}
	ts := httptest.NewServer(tb.rec)
	t.Cleanup(ts.Close)
	tb.url = ts.URL + "/v1"
	c, err := NewOpenAI(OpenAIConfig{BaseURL: tb.url, APIKey: "sk-local", Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	tb.client = c
	return tb
}

func userMsg(s string) Message { return Message{Role: "user", Content: s} }

func TestOpenAIRoundTrip(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	req := Request{
		Messages: []Message{
			{Role: "system", Content: "Be terse."},
			userMsg("2+2?"),
			{Role: "assistant", Content: "4", Reasoning: "two plus two"},
			userMsg("and 3+3?"),
		},
		Temperature: Temp(0.3),
		MaxTokens:   77,
		Stop:        []string{"</answer>", "END"},
		Seed:        42,
		Purpose:     "cot",
	}
	resp, err := tb.client.Sample(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := Response{
		Choices: []Choice{{Index: 0, Content: "choice seed=42 echo=and 3+3?", Reasoning: "thinking 42", FinishReason: "stop"}},
		Usage:   Usage{PromptTokens: 40, CompletionTokens: 5, Requests: 1},
		Model:   "test-model",
	}
	if !reflect.DeepEqual(resp, want) {
		t.Fatalf("response\n got %+v\nwant %+v", resp, want)
	}
	got := tb.fake.requests()
	if len(got) != 1 {
		t.Fatalf("sampler saw %d requests", len(got))
	}
	wantReq := req
	wantReq.N = 1
	wantReq.Purpose = ""
	if !reflect.DeepEqual(got[0], wantReq) {
		t.Fatalf("sampler request\n got %+v\nwant %+v", got[0], wantReq)
	}
	body := tb.rec.last(t)
	if _, ok := body["n"]; ok {
		t.Errorf("n sent for a single sample: %s", body["n"])
	}
	if string(body["seed"]) != "42" || string(body["max_tokens"]) != "77" || string(body["model"]) != `"test-model"` {
		t.Errorf("body: seed=%s max_tokens=%s model=%s", body["seed"], body["max_tokens"], body["model"])
	}
	if _, ok := body["purpose"]; ok {
		t.Error("purpose must never be sent")
	}
	var msgs []map[string]any
	if err := json.Unmarshal(body["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	if msgs[2]["reasoning_content"] != "two plus two" {
		t.Errorf("assistant reasoning not sent as reasoning_content: %v", msgs[2])
	}
	if _, ok := msgs[0]["reasoning_content"]; ok {
		t.Errorf("empty reasoning sent: %v", msgs[0])
	}
}

func TestOpenAIOmitsZeroFields(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	if _, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("hi")}, Seed: 0, Temperature: Temp(0)}); err != nil {
		t.Fatal(err)
	}
	body := tb.rec.last(t)
	for _, k := range []string{"n", "max_tokens", "stop", "tools"} {
		if v, ok := body[k]; ok {
			t.Errorf("%s sent: %s", k, v)
		}
	}
	for _, k := range []string{"seed", "temperature"} {
		if _, ok := body[k]; !ok {
			t.Errorf("%s not sent", k)
		}
	}
	// Temperature 0 is greedy decoding, not "unset".
	if got := tb.fake.requests()[0].Temperature; got == nil || *got != 0 {
		t.Errorf("temperature = %v, want 0", got)
	}

	// No temperature: none sent, the model samples at its default.
	if _, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("hi")}}); err != nil {
		t.Fatal(err)
	}
	if v, ok := tb.rec.last(t)["temperature"]; ok {
		t.Errorf("unset temperature sent as %s", v)
	}
	if got := tb.fake.requests()[1].Temperature; got != nil {
		t.Errorf("server read temperature %v, want none", *got)
	}
}

func TestOpenAIToolRoundTrip(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	schema := `{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}`
	tools := []ToolSpec{{Name: "calc", Description: "evaluate arithmetic", Parameters: json.RawMessage(schema)}}
	history := []Message{userMsg("What is 2+2? Use calc.")}
	resp, err := tb.client.Sample(context.Background(), Request{Messages: history, Tools: tools, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Choices[0]
	wantCalls := []ToolCall{{ID: "call_7", Name: "calc", Arguments: `{"seed":7}`}}
	if !reflect.DeepEqual(c.ToolCalls, wantCalls) || c.FinishReason != "tool_calls" || c.Content != "" {
		t.Fatalf("choice = %+v", c)
	}
	if got := tb.fake.requests()[0].Tools; !reflect.DeepEqual(got, tools) {
		t.Fatalf("tools at sampler = %+v", got)
	}
	// The schema is sent verbatim, key order included.
	var sent []struct {
		Type     string
		Function struct{ Parameters json.RawMessage }
	}
	if err := json.Unmarshal(tb.rec.last(t)["tools"], &sent); err != nil {
		t.Fatal(err)
	}
	if sent[0].Type != "function" || string(sent[0].Function.Parameters) != schema {
		t.Errorf("tool sent as %+v", sent)
	}

	history = append(history, c.Message(), Message{Role: "tool", ToolCallID: c.ToolCalls[0].ID, Name: "calc", Content: "4"})
	resp, err = tb.client.Sample(context.Background(), Request{Messages: history, Tools: tools, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Content; got != "tool call_7 said 4" {
		t.Fatalf("content = %q", got)
	}
	seen := tb.fake.requests()[1].Messages
	if !reflect.DeepEqual(seen[1].ToolCalls, wantCalls) || seen[1].Role != "assistant" {
		t.Errorf("assistant turn at sampler = %+v", seen[1])
	}
	if seen[2].Role != "tool" || seen[2].ToolCallID != "call_7" || seen[2].Content != "4" || seen[2].Name != "calc" {
		t.Errorf("tool turn at sampler = %+v", seen[2])
	}
}

func TestOpenAINHonoured(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	resp, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 10, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if tb.server.Requests() != 1 || resp.Usage.Requests != 1 {
		t.Fatalf("requests: server %d, usage %d; want 1", tb.server.Requests(), resp.Usage.Requests)
	}
	checkSeeds(t, resp, 10, 5)
	if string(tb.rec.last(t)["n"]) != "10" {
		t.Errorf("n sent = %s", tb.rec.last(t)["n"])
	}
}

func checkSeeds(t *testing.T, resp Response, n int, seed int64) {
	t.Helper()
	if len(resp.Choices) != n {
		t.Fatalf("%d choices, want %d", len(resp.Choices), n)
	}
	for i, c := range resp.Choices {
		want := fmt.Sprintf("choice seed=%d echo=", seed+int64(i))
		if c.Index != i || !strings.HasPrefix(c.Content, want) {
			t.Fatalf("choice %d = %+v, want index %d and content %q...", i, c, i, want)
		}
	}
}

func TestOpenAINCappedAndIgnored(t *testing.T) {
	const n, seed = 100, 1000
	req := Request{Messages: []Message{userMsg("q")}, N: n, Seed: seed, Temperature: Temp(0.8)}
	cases := []struct {
		name string
		opts ServerOptions
		want int64
	}{
		{"uncapped", ServerOptions{}, 1},
		{"maxn8", ServerOptions{MaxN: 8}, 13},
		{"ignoren", ServerOptions{IgnoreN: true}, 100},
	}
	var first Response
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTestBackend(t, tc.opts)
			resp, err := tb.client.Sample(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := tb.server.Requests(); got != tc.want || int64(resp.Usage.Requests) != tc.want {
				t.Fatalf("requests: server %d, usage %d; want %d", got, resp.Usage.Requests, tc.want)
			}
			checkSeeds(t, resp, n, seed)
			if resp.Usage.CompletionTokens != 5*n || resp.Usage.PromptTokens != 10*int(tc.want) {
				t.Errorf("usage = %+v", resp.Usage)
			}
			for _, r := range tb.fake.requests() {
				if r.TemperatureOr(-1) != 0.8 || len(r.Messages) != 1 {
					t.Errorf("top-up request lost parameters: %+v", r)
				}
			}
			if i == 0 {
				first = resp
			} else if !reflect.DeepEqual(resp.Choices, first.Choices) {
				t.Errorf("choices differ from the uncapped run")
			}
		})
	}
}

// A server that answers fewer choices than asked each time (here about
// half): top-ups recurse until every choice is filled, seeds still aligned.
func TestOpenAIShrinkingServer(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	tb.fake.choices = func(n int) int { return (n + 1) / 2 }
	resp, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	checkSeeds(t, resp, 10, 3)
	// 10→5; [5,10) asks 5→3; [8,10) asks 2→1; [9,10) asks 1→1.
	if got := tb.server.Requests(); got != 4 || resp.Usage.Requests != 4 {
		t.Errorf("requests: server %d, usage %d; want 4", got, resp.Usage.Requests)
	}
}

func TestOpenAIServerReturnsMoreThanAsked(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	tb.fake.choices = func(n int) int { return n + 3 }
	resp, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkSeeds(t, resp, 2, 1)
}

func TestOpenAIZeroChoices(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	tb.fake.choices = func(int) int { return 0 }
	_, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 3})
	if err == nil || !strings.Contains(err.Error(), "no choices") {
		t.Fatalf("err = %v", err)
	}
	if Retryable(err) {
		t.Error("empty choices should not be retryable")
	}
}

func TestOpenAITopUpErrorFailsAll(t *testing.T) {
	fake := &fakeSampler{}
	n := 0
	var mu sync.Mutex
	s := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k == 3 {
			return Response{}, errors.New("boom")
		}
		return fake.Sample(ctx, req)
	})
	ts := httptest.NewServer(NewServer(s, ServerOptions{IgnoreN: true}))
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 6})
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 500 {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: "http://" + addr + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"http://" + addr + "/v1", "connection refused", "--base-url", "running"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if !Retryable(err) {
		t.Error("connection refused should be retryable")
	}
	t.Log(msg)
}

func TestNewOpenAIBadURL(t *testing.T) {
	for _, u := range []string{"127.0.0.1:8000/v1", "ftp://x/v1", "http://user:pw@%zz"} {
		if _, err := NewOpenAI(OpenAIConfig{BaseURL: u}); err == nil {
			t.Errorf("%q accepted", u)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("password leaked: %v", err)
		}
	}
}

// NoKey sends no credentials even with $OPENAI_API_KEY set (the SDK
// reads it by itself) or a key given.
func TestOpenAINoKey(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	t.Setenv("OPENAI_API_KEY", "sk-run-key-in-env")
	for _, key := range []string{"", "sk-given"} {
		c, err := NewOpenAI(OpenAIConfig{BaseURL: tb.url, Model: "m", APIKey: key, NoKey: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}}); err != nil {
			t.Fatal(err)
		}
		if got := tb.rec.auth[len(tb.rec.auth)-1]; got != "" {
			t.Errorf("key %q: Authorization %q sent", key, got)
		}
	}
}

func TestOpenAIEnvDefaults(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	t.Setenv("OPENAI_BASE_URL", tb.url)
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	c, err := NewOpenAI(OpenAIConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}}); err != nil {
		t.Fatal(err)
	}
	if got := tb.rec.auth[len(tb.rec.auth)-1]; got != "Bearer sk-from-env" {
		t.Errorf("Authorization = %q", got)
	}
	if strings.Contains(c.String(), "sk-") {
		t.Errorf("String() leaks the key: %s", c)
	}

	t.Setenv("OPENAI_API_KEY", "")
	c, err = NewOpenAI(OpenAIConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}}); err != nil {
		t.Fatal(err)
	}
	if got := tb.rec.auth[len(tb.rec.auth)-1]; got != "" {
		t.Errorf("Authorization sent without a key: %q", got)
	}
}

func TestOpenAIKeyNeverInErrors(t *testing.T) {
	const key = "sk-test-SECRET"
	var gotAuth string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		// A careless server echoing the key back.
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (%s)","type":"invalid_request_error","code":"invalid_api_key"}}`,
			key, r.Header.Get("Authorization"))
	}))
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", APIKey: key, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	s := Chain(c, Retry(RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}))
	_, err = s.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
	if err == nil {
		t.Fatal("no error")
	}
	if gotAuth != "Bearer "+key {
		t.Errorf("server saw Authorization %q", gotAuth)
	}
	for _, text := range []string{err.Error(), fmt.Sprintf("%v %+v %#v %s", err, err, err, c)} {
		if strings.Contains(text, "SECRET") {
			t.Fatalf("key leaked: %s", text)
		}
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("error lacks status or message: %v", err)
	}
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 401 {
		t.Fatalf("errors.As *openai.Error: %v", err)
	}
	if Retryable(err) {
		t.Error("401 should not be retried")
	}
	t.Log(err)
}

func TestOpenAIMalformedResponses(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		status            int
		wantStatus        int // as *openai.Error; 0 = not an API error
		retryable         bool
	}{
		{"not json", "application/json", "this is not json", 200, 0, false},
		{"text plain", "text/plain", "hello", 200, 0, false},
		{"empty body", "application/json", "", 200, 0, false},
		{"empty choices", "application/json", `{"id":"x","object":"chat.completion","choices":[],"usage":{}}`, 200, 0, false},
		{"null choices", "application/json", `{"id":"x","object":"chat.completion","choices":null}`, 200, 0, false},
		{"html 502", "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>", 502, 502, true},
		{"json 503", "application/json", `{"error":{"message":"overloaded","type":"server_error"}}`, 503, 503, true},
		{"truncated", "application/json", `{"id":"x","choices":[{"index":0,"message":{"role":"assis`, 200, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer ts.Close()
			c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 2})
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			if !strings.Contains(err.Error(), ts.URL) {
				t.Errorf("error does not name the server: %v", err)
			}
			var ae *openai.Error
			gotStatus := 0
			if errors.As(err, &ae) {
				gotStatus = ae.StatusCode
			}
			if gotStatus != tc.wantStatus {
				t.Errorf("status %d, want %d (%v)", gotStatus, tc.wantStatus, err)
			}
			if Retryable(err) != tc.retryable {
				t.Errorf("Retryable = %v, want %v (%v)", !tc.retryable, tc.retryable, err)
			}
			t.Log(err)
		})
	}
}

func TestOpenAIBadRequestInput(t *testing.T) {
	c, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []Request{
		{Messages: []Message{{Role: "wizard", Content: "x"}}},
		{Messages: []Message{userMsg("x")}, Tools: []ToolSpec{{Name: "t", Parameters: json.RawMessage(`{bad`)}}},
	} {
		if _, err := c.Sample(context.Background(), req); err == nil {
			t.Errorf("accepted %+v", req)
		} else if Retryable(err) {
			t.Errorf("retryable: %v", err)
		}
	}
}
