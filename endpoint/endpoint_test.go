package endpoint

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// echo answers every request with its identity and remembers the calls.
type echo struct {
	mu    sync.Mutex
	calls []llm.Request
	fail  error
}

func (e *echo) Sample(_ context.Context, r llm.Request) (llm.Response, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail != nil {
		return llm.Response{}, e.fail
	}
	e.calls = append(e.calls, r)
	var resp llm.Response
	for i := range r.Samples() {
		resp.Choices = append(resp.Choices, llm.Choice{Index: i, Content: r.Call})
	}
	resp.Usage = llm.Usage{PromptTokens: 3, CompletionTokens: 1, Requests: 1}
	return resp, nil
}

// serve starts an endpoint whose items are echo models (one per index).
func serve(t *testing.T, items bool) (*Listener, *Log, func(int) *echo, string) {
	t.Helper()
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	models, servers := map[int]*echo{}, map[int]http.Handler{}
	log := &Log{}
	model := func(i int) *echo {
		mu.Lock()
		defer mu.Unlock()
		if models[i] == nil {
			models[i] = &echo{}
			servers[i] = ItemServer(models[i], "proxy", log)
		}
		return models[i]
	}
	h := &Handler{Token: token, Log: log, Items: items, Item: func(i int) (http.Handler, error) {
		model(i)
		mu.Lock()
		defer mu.Unlock()
		return servers[i], nil
	}}
	l, err := Listen("127.0.0.1:0", token, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, log, model, token
}

func post(t *testing.T, url, key, body string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const chatBody = `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`

// Only the run's token, in the path and as the key, reaches a model;
// every refusal is kept with a one-line reason that does not show the
// token.
func TestHandlerRefuses(t *testing.T) {
	l, log, model, token := serve(t, false)
	root := strings.TrimSuffix(l.URL, "/"+token+"/v1")
	for i, c := range []struct {
		name, url, key, body string
		status               int
		reason               string
	}{
		{"wrong key", l.URL + "/chat/completions", "sk-other", chatBody, 401, "401 POST /<token>/v1/chat/completions: wrong API key"},
		{"no key", l.URL + "/chat/completions", "", chatBody, 401, "401 POST /<token>/v1/chat/completions: wrong API key"},
		{"no token in the path", root + "/v1/chat/completions", token, chatBody, 404, "404 POST /v1/chat/completions: unknown path"},
		{"another token in the path", root + "/" + strings.Repeat("0", 32) + "/v1/chat/completions", token, chatBody, 404, "404 POST /00000000000000000000000000000000/v1/chat/completions: unknown path"},
		{"unknown path", l.URL + "/embeddings", token, chatBody, 404, "404 POST /<token>/v1/embeddings: unknown path /v1/embeddings"},
		{"malformed JSON", l.URL + "/chat/completions", token, `{"messages": [`, 400, "400 POST /<token>/v1/chat/completions: malformed JSON body"},
		{"no messages", l.URL + "/chat/completions", token, `{"model":"m"}`, 400, "400 POST /<token>/v1/chat/completions: messages: must be a non-empty array"},
		{"call name too long", l.URL + "/chat/completions", token, chatBody, 400, "X-Bench-Call: at most 256 bytes"},
		{"n too large", l.URL + "/chat/completions", token, `{"messages":[{"role":"user","content":"x"}],"n":100000000}`, 400, "n: must be at most"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h []string
			if c.name == "call name too long" {
				h = []string{CallHeader, strings.Repeat("a", 257)}
			}
			status, _ := post(t, c.url, c.key, c.body, h...)
			n, reasons := log.Refused()
			if status != c.status || n != i+1 || len(reasons) != 1 {
				t.Fatalf("status %d, %d refusals; want %d", status, n, c.status)
			}
			log.mu.Lock()
			log.refused = nil // so that the next case's reason is the first kept
			log.mu.Unlock()
			if r := reasons[len(reasons)-1]; !strings.Contains(r, c.reason) || strings.Contains(r, token) || strings.Contains(r, "\n") {
				t.Errorf("reason %q, want %q", r, c.reason)
			}
		})
	}
	if len(model(0).calls) != 0 {
		t.Errorf("%d refused requests reached the model", len(model(0).calls))
	}
	if status, body := post(t, l.URL+"/chat/completions", token, chatBody); status != 200 || !strings.Contains(body, `"content":"p/`) {
		t.Errorf("%d %s", status, body)
	}
	if log.Requests() != 10 || log.Err() != nil {
		t.Errorf("%d requests, error %v", log.Requests(), log.Err())
	}
}

// A call's content identity does not depend on how its JSON is spelled,
// and does on the API it came on.
func TestHandlerContentIdentity(t *testing.T) {
	l, _, model, token := serve(t, false)
	bodies := []struct{ path, body string }{
		{"/chat/completions", `{"model":"a","messages":[{"role":"user","content":"hi"}],"temperature":0.5,"seed":1}`},
		{"/chat/completions", "{ \"temperature\": 0.50, \"messages\": [ {\"content\": \"hi\", \"role\": \"user\"} ], \"model\": \"b\" }"},
		{"/chat/completions", `{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"temperature":0.5}`},
		{"/completions", `{"model":"a","prompt":"hi","temperature":0.5}`},
		{"/completions", `{"model":"a","prompt":["hi"],"temperature":0.5}`},
	}
	for _, b := range bodies {
		if status, body := post(t, l.URL+b.path, token, b.body); status != 200 {
			t.Fatalf("%s: %d %s", b.body, status, body)
		}
	}
	calls := model(0).calls
	chat := llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}, N: 1, Temperature: llm.Temp(0.5)}
	kc, kp := "p/"+ContentKey(APIChat, chat), "p/"+ContentKey(APICompletions, chat)
	want := []string{kc + "#1", kc + "#2", kc + "#3", kp + "#1", kp + "#2"}
	for i, c := range calls {
		if c.Call != want[i] || c.Purpose != "proxy" {
			t.Errorf("call %d: %q (%s), want %q", i, c.Call, c.Purpose, want[i])
		}
	}
}

// bench proxy's endpoint routes by /item/<n>/ or X-Bench-Item, else
// item 0; each item counts its own identities.
func TestHandlerItems(t *testing.T) {
	l, log, model, token := serve(t, true)
	base := strings.TrimSuffix(l.URL, "/v1")
	for _, r := range []struct {
		url    string
		header []string
		status int
	}{
		{base + "/item/3/v1/chat/completions", nil, 200},
		{base + "/item/3/chat/completions", nil, 200},
		{l.URL + "/chat/completions", []string{ItemHeader, "5"}, 200},
		{l.URL + "/chat/completions", nil, 200},
		{base + "/item/x/v1/chat/completions", nil, 404},
		{l.URL + "/chat/completions", []string{ItemHeader, "-1"}, 400},
	} {
		if status, body := post(t, r.url, token, chatBody, r.header...); status != r.status {
			t.Errorf("%s %v: %d %s", r.url, r.header, status, body)
		}
	}
	if n := len(model(3).calls); n != 2 || !strings.HasSuffix(model(3).calls[1].Call, "#2") {
		t.Errorf("item 3: %d calls", n)
	}
	if len(model(5).calls) != 1 || len(model(0).calls) != 1 || !strings.HasSuffix(model(5).calls[0].Call, "#1") {
		t.Errorf("items 5 and 0: %d and %d calls", len(model(5).calls), len(model(0).calls))
	}
	if n, _ := log.Refused(); n != 2 {
		t.Errorf("%d refusals", n)
	}
}

// A failure of the stack while the client waits is the log's error (the
// run's, not the program's), and the client gets a 500.
func TestHandlerKeepsStackFailure(t *testing.T) {
	l, log, model, token := serve(t, false)
	model(0).fail = errors.New("model unreachable")
	status, _ := post(t, l.URL+"/chat/completions", token, chatBody)
	if status != 500 || log.Err() == nil || log.Err().Error() != "model unreachable" {
		t.Errorf("status %d, error %v", status, log.Err())
	}
}

// Streaming passes through the refusal-keeping writer.
func TestHandlerStreams(t *testing.T) {
	l, _, _, token := serve(t, false)
	status, body := post(t, l.URL+"/chat/completions", token, `{"messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if status != 200 || !strings.Contains(body, "data: [DONE]") || !strings.Contains(body, `"prompt_tokens":3`) {
		t.Errorf("%d %s", status, body)
	}
}

func TestListenOnlyLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "localhost:0", "[::]:0"} {
		if l, err := Listen(addr, "t", http.NotFoundHandler()); err == nil {
			l.Close()
			t.Errorf("%s: listened", addr)
		}
	}
	l, err := Listen("127.0.0.1:0", "t", http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.URL, "http://127.0.0.1:") || !strings.HasSuffix(l.URL, "/t/v1") {
		t.Errorf("URL %s", l.URL)
	}
	l.Close()
}
