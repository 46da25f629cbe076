package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func postJSON(t *testing.T, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("response is not JSON (%v): %s", err, b)
	}
	return res.StatusCode, res.Header, m
}

func TestServerDecodesRequest(t *testing.T) {
	fake := &fakeSampler{}
	ts := httptest.NewServer(NewServer(fake, ServerOptions{}))
	defer ts.Close()
	body := `{
	  "model": "whatever-model",
	  "messages": [
	    {"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
	    {"role": "user", "content": "compute"},
	    {"role": "assistant", "content": null, "reasoning_content": "hmm",
	     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"e\":1}"}}]},
	    {"role": "tool", "tool_call_id": "c1", "name": "calc", "content": "1"},
	    {"role": "assistant", "content": "x", "reasoning": "alt field"},
	    {"role": "user", "content": "again"}
	  ],
	  "n": 3, "temperature": 0.5, "max_completion_tokens": 99, "max_tokens": 5,
	  "stop": "STOP", "seed": 11, "top_k": 20,
	  "tools": [{"type": "function", "function": {"name": "calc", "description": "d", "parameters": {"type": "object"}}}]
	}`
	for _, path := range []string{"/v1/chat/completions", "/chat/completions"} {
		code, hdr, m := postJSON(t, ts.URL+path, body)
		if code != 200 || hdr.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s %v", path, code, hdr.Get("Content-Type"), m)
		}
		if m["model"] != "whatever-model" || m["object"] != "chat.completion" || len(m["choices"].([]any)) != 3 {
			t.Errorf("%s: response %v", path, m)
		}
	}
	want := Request{
		Messages: []Message{
			{Role: "system", Content: "a\nb"},
			{Role: "user", Content: "compute"},
			{Role: "assistant", Reasoning: "hmm", ToolCalls: []ToolCall{{ID: "c1", Name: "calc", Arguments: `{"e":1}`}}},
			{Role: "tool", ToolCallID: "c1", Name: "calc", Content: "1"},
			{Role: "assistant", Content: "x", Reasoning: "alt field"},
			{Role: "user", Content: "again"},
		},
		N: 3, Temperature: Temp(0.5), MaxTokens: 99, Stop: []string{"STOP"}, Seed: 11,
		Tools: []ToolSpec{{Name: "calc", Description: "d", Parameters: json.RawMessage(`{"type": "object"}`)}},
	}
	if got := fake.requests()[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("request\n got %+v\nwant %+v", got, want)
	}
}

func TestServerResponseShape(t *testing.T) {
	s := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		return Response{
			Choices: []Choice{
				{Index: 7, Content: "plain"},
				{Content: "cut", FinishReason: "length", Reasoning: "r"},
				{ToolCalls: []ToolCall{{Name: "f", Arguments: "{}"}}},
			},
			Usage: Usage{PromptTokens: 3, CompletionTokens: 4},
		}, nil
	})
	ts := httptest.NewServer(NewServer(s, ServerOptions{}))
	defer ts.Close()
	_, _, m := postJSON(t, ts.URL+"/v1/chat/completions", `{"model":"sim","messages":[{"role":"user","content":"hi"}],"n":3}`)
	b, _ := json.Marshal(m["choices"])
	var choices []struct {
		Index   int
		Message struct {
			Role             string
			Content          *string
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				ID, Type string
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		}
		FinishReason string `json:"finish_reason"`
	}
	if err := json.Unmarshal(b, &choices); err != nil {
		t.Fatal(err)
	}
	if choices[0].Index != 0 || *choices[0].Message.Content != "plain" || choices[0].FinishReason != "stop" || choices[0].Message.ReasoningContent != nil {
		t.Errorf("choice 0: %+v", choices[0])
	}
	if choices[1].FinishReason != "length" || *choices[1].Message.ReasoningContent != "r" {
		t.Errorf("choice 1: %+v", choices[1])
	}
	c2 := choices[2]
	if c2.FinishReason != "tool_calls" || c2.Message.Content != nil || c2.Message.Role != "assistant" ||
		len(c2.Message.ToolCalls) != 1 || c2.Message.ToolCalls[0].ID == "" || c2.Message.ToolCalls[0].Type != "function" ||
		c2.Message.ToolCalls[0].Function.Name != "f" {
		t.Errorf("choice 2: %+v", c2)
	}
	u := m["usage"].(map[string]any)
	if u["prompt_tokens"] != 3.0 || u["completion_tokens"] != 4.0 || u["total_tokens"] != 7.0 {
		t.Errorf("usage %v", u)
	}
	if id, _ := m["id"].(string); !strings.HasPrefix(id, "chatcmpl-") || m["created"] == nil {
		t.Errorf("id/created: %v", m)
	}
}

func TestServerNCaps(t *testing.T) {
	for _, tc := range []struct {
		opts    ServerOptions
		n, want int
	}{
		{ServerOptions{}, 50, 50},
		{ServerOptions{MaxN: 8}, 50, 8},
		{ServerOptions{MaxN: 8}, 5, 5},
		{ServerOptions{IgnoreN: true}, 50, 1},
		{ServerOptions{IgnoreN: true, MaxN: 8}, 50, 1},
	} {
		fake := &fakeSampler{}
		ts := httptest.NewServer(NewServer(fake, tc.opts))
		body := `{"model":"m","messages":[{"role":"user","content":"q"}],"n":` + itoa(tc.n) + `}`
		_, _, m := postJSON(t, ts.URL+"/v1/chat/completions", body)
		ts.Close()
		if got := len(m["choices"].([]any)); got != tc.want || fake.requests()[0].N != tc.want {
			t.Errorf("%+v n=%d: %d choices, sampler N=%d; want %d", tc.opts, tc.n, got, fake.requests()[0].N, tc.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestServerErrors(t *testing.T) {
	fake := &fakeSampler{}
	srv := NewServer(fake, ServerOptions{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{not json`, 400},
		{``, 400},
		{`{"model":"m","messages":[]}`, 400},
		{`{"model":"m","messages":[{"role":"user","content":"q"}],"n":0}`, 400},
		{`{"model":"m","messages":[{"role":"user","content":"q"}],"n":100000000}`, 400},
		{`{"model":"m","messages":[{"role":"user","content":"q"}],"stop":5}`, 400},
		{`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, 400},
		{`{"model":"m","messages":[{"role":"user","content":{"x":1}}]}`, 400},
		{`{"model":"m","messages":[{"role":"wizard","content":"q"}]}`, 400},
		{`{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"type":"retrieval"}]}`, 400},
	} {
		code, hdr, m := postJSON(t, ts.URL+"/v1/chat/completions", tc.body)
		e, _ := m["error"].(map[string]any)
		if code != tc.code || hdr.Get("Content-Type") != "application/json" || e == nil || e["message"] == "" || e["type"] == nil {
			t.Errorf("%s: %d %v", tc.body, code, m)
		}
	}
	if got := srv.Requests(); got != 10 {
		t.Errorf("Requests() = %d, want 10", got)
	}
	// The completions endpoint reads n the same way.
	for _, n := range []string{"0", "129", "100000000"} {
		if code, _, m := postJSON(t, ts.URL+"/v1/completions", `{"model":"m","prompt":"q","n":`+n+`}`); code != 400 {
			t.Errorf("completions n=%s: %d %v", n, code, m)
		}
	}
	if len(fake.reqs) != 0 {
		t.Errorf("the sampler was asked %d times for refused requests", len(fake.reqs))
	}

	fake.err = errors.New("model exploded")
	code, _, m := postJSON(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	if code != 500 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "model exploded") {
		t.Errorf("sampler error: %d %v", code, m)
	}

	res, err := http.Get(ts.URL + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 405 {
		t.Errorf("GET chat: %d", res.StatusCode)
	}
	res, err = http.Get(ts.URL + "/v1/nope")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("unknown path: %d", res.StatusCode)
	}
}

func TestServerModels(t *testing.T) {
	ts := httptest.NewServer(NewServer(&fakeSampler{}, ServerOptions{}))
	defer ts.Close()
	for _, p := range []string{"/v1/models", "/models"} {
		res, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Object string
			Data   []struct{ ID string }
		}
		err = json.NewDecoder(res.Body).Decode(&m)
		res.Body.Close()
		if err != nil || res.Header.Get("Content-Type") != "application/json" || m.Object != "list" || len(m.Data) != 1 || m.Data[0].ID != "sim" {
			t.Errorf("%s: %v %+v", p, err, m)
		}
	}
}

func TestServerLatency(t *testing.T) {
	fake := &fakeSampler{}
	ts := httptest.NewServer(NewServer(fake, ServerOptions{Latency: 50 * time.Millisecond}))
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered in %v, before the latency", d)
	}

	// A client that gives up ends the wait; the sampler is never called.
	slow := httptest.NewServer(NewServer(fake, ServerOptions{Latency: time.Hour}))
	defer slow.Close()
	c, err = NewOpenAI(OpenAIConfig{BaseURL: slow.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	before := len(fake.requests())
	if _, err := c.Sample(ctx, Request{Messages: []Message{userMsg("q")}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if len(fake.requests()) != before {
		t.Error("sampler called after the client left")
	}
	// slow.Close (deferred) blocks until handlers return: it would hang if
	// the latency ignored the request context.
}
