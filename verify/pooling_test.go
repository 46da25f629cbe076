package verify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
)

// standIn is a local stand-in of a reward model server: it records each
// request body and answers with a fixed body, as vLLM's /pooling and
// SGLang's native /classify document them.
type standIn struct {
	mu     sync.Mutex
	path   string
	bodies []map[string]any
	status int
	answer string
}

func (s *standIn) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("request body %q: %v", b, err)
		}
		s.mu.Lock()
		s.path = r.URL.Path
		s.bodies = append(s.bodies, body)
		status, answer := s.status, s.answer
		s.mu.Unlock()
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func newVerifier(t *testing.T, s llm.Sampler, kind string) *Model {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(s, Options{Kind: kind, Prompts: lib})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// vLLM's pooling response, the shape of its documentation: a list of
// per-request objects whose data, under Qwen2.5-Math-PRM's step pooler, is
// [P(incorrect), P(correct)] per step tag.
const vllmPRMAnswer = `{"id":"pool-7","object":"list","created":1745383213,"model":"Qwen/Qwen2.5-Math-PRM-7B",
"data":[{"index":0,"object":"pooling","data":[[0.0313,0.9687],[0.8125,0.1875]]}],
"usage":{"prompt_tokens":57,"total_tokens":57,"completion_tokens":0,"prompt_tokens_details":null}}`

func TestVLLMPooling(t *testing.T) {
	si := &standIn{answer: vllmPRMAnswer}
	url := si.start(t)
	p, err := NewPooling(PoolingConfig{BaseURL: url + "/v1", Model: "Qwen/Qwen2.5-Math-PRM-7B", APIKey: "sk-secret"})
	if err != nil {
		t.Fatal(err)
	}
	v := newVerifier(t, p, PRM)
	s, err := v.Verify(context.Background(), Request{Call: "s0/verify", Problem: "What is 2+3?",
		Steps: []string{"2 + 3 = 5.", "So the answer is \\boxed{6}."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0] != 0.9687 || s[1] != 0.1875 {
		t.Errorf("scores %v, want [0.9687 0.1875]", s)
	}
	if si.path != "/pooling" {
		t.Errorf("posted to %s, want /pooling (a trailing /v1 dropped)", si.path)
	}
	body := si.bodies[0]
	if body["model"] != "Qwen/Qwen2.5-Math-PRM-7B" {
		t.Errorf("model %v", body["model"])
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("messages %v", body["messages"])
	}
	want := []struct{ role, content string }{{"system", DefaultSystem}, {"user", "What is 2+3?"},
		{"assistant", "2 + 3 = 5.<extra_0>So the answer is \\boxed{6}.<extra_0>"}}
	for i, w := range want {
		m := msgs[i].(map[string]any)
		if m["role"] != w.role || m["content"] != w.content {
			t.Errorf("message %d: %v, want %s %q", i, m, w.role, w.content)
		}
	}
	// The sampler's own response: scores as content, prompt tokens from usage.
	resp, err := p.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, Reward: &llm.Reward{Kind: PRM, Sep: DefaultSep}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Content != "[0.9687,0.1875]" || resp.Usage.PromptTokens != 57 || resp.Usage.CompletionTokens != 0 || resp.Usage.Requests != 1 {
		t.Errorf("response %+v", resp)
	}
	// An orm reads the last position: here the last step's pair.
	o := newVerifier(t, p, ORM)
	if s, err := o.Verify(context.Background(), Request{Call: "c", Problem: "q", Steps: []string{"a", "b"}}); err != nil || len(s) != 1 || s[0] != 0.1875 {
		t.Errorf("orm scores %v, %v", s, err)
	}
	if m := si.bodies[len(si.bodies)-1]["messages"].([]any)[2].(map[string]any); m["content"] != "a\nb" {
		t.Errorf("orm solution %q: want the steps on lines, no step tags", m["content"])
	}
}

func TestVLLMRewardShapes(t *testing.T) {
	for _, tc := range []struct {
		name, data, kind string
		want             []float64
	}{
		{"ALL pooler, one reward per token", `[[0.5],[-1.0],[2.0]]`, ORM, []float64{1 / (1 + math.Exp(-2))}},
		{"flat per-token rewards", `[0.5,-1.0,2.0]`, ORM, []float64{1 / (1 + math.Exp(-2))}},
		{"one reward", `3.0`, ORM, []float64{1 / (1 + math.Exp(-3))}},
		{"a classifier's pair", `[0.25,0.75]`, ORM, []float64{0.75}},
		{"step logits, no softmax", `[[1.0,3.0],[2.0,0.0]]`, PRM, []float64{1 / (1 + math.Exp(-2)), 1 / (1 + math.Exp(2))}},
		{"one logit per step", `[0.0,1.0]`, PRM, []float64{0.5, 1 / (1 + math.Exp(-1))}},
	} {
		got, err := RewardScores(json.RawMessage(tc.data), tc.kind)
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s: %v, %v", tc.name, got, err)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `[[1,2,3]]`, `{"a":1}`, `null`, `[[]]`} {
		if s, err := RewardScores(json.RawMessage(bad), PRM); err == nil {
			t.Errorf("%s accepted: %v", bad, s)
		}
	}
}

func TestSGLangClassify(t *testing.T) {
	// SGLang's native /classify answers a text with its raw output as
	// "embedding"; a list of texts with a list.
	for _, answer := range []string{
		`{"embedding":[1.5],"meta_info":{"id":"a1","prompt_tokens":40,"cached_tokens":0}}`,
		`[{"embedding":[1.5],"meta_info":{"id":"a1","prompt_tokens":40}}]`,
	} {
		si := &standIn{answer: answer}
		url := si.start(t)
		p, err := NewPooling(PoolingConfig{BaseURL: url, Model: "Qwen/Qwen2.5-Math-RM-72B", Server: SGLang})
		if err != nil {
			t.Fatal(err)
		}
		v := newVerifier(t, p, ORM)
		s, err := v.Verify(context.Background(), Request{Call: "c", Problem: "What is 2+3?", Steps: []string{"2+3=5", "\\boxed{5}"}})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 / (1 + math.Exp(-1.5)); len(s) != 1 || math.Abs(s[0]-want) > 1e-12 {
			t.Errorf("scores %v, want [%v]: a single reward logit is not squashed to 1 by a softmax", s, want)
		}
		if si.path != "/classify" {
			t.Errorf("posted to %s, want the native /classify", si.path)
		}
		text, _ := si.bodies[0]["text"].(string)
		want := "<|im_start|>system\n" + DefaultSystem + "<|im_end|>\n<|im_start|>user\nWhat is 2+3?<|im_end|>\n<|im_start|>assistant\n2+3=5\n\\boxed{5}<|im_end|>\n"
		if text != want {
			t.Errorf("text %q\nwant %q", text, want)
		}
	}
}

func TestPoolingFailures(t *testing.T) {
	ctx := context.Background()
	req := Request{Call: "c", Problem: "q", Steps: []string{"a", "b"}}
	for _, tc := range []struct {
		name      string
		status    int
		answer    string
		retryable bool
		says      string
	}{
		{"overloaded", 503, `{"message":"busy"}`, true, "HTTP 503"},
		{"rate limited", 429, `{}`, true, "HTTP 429"},
		{"bad request", 400, `{"message":"no"}`, false, "HTTP 400"},
		{"not JSON", 200, `<html>`, false, "want vLLM's"},
		{"no step tags seen", 200, `{"data":[{"index":0,"data":[]}]}`, false, "no scores"},
		{"one score for two steps", 200, `{"data":[{"index":0,"data":[[0.2,0.8]]}]}`, false, "--verifier-sep"},
		{"out of range pair", 200, `{"data":[{"index":0,"data":[[0.1,0.9],[0.5,"x"]]}]}`, false, "want a number"},
	} {
		si := &standIn{status: tc.status, answer: tc.answer}
		p, _ := NewPooling(PoolingConfig{BaseURL: si.start(t), APIKey: "sk-secret"})
		_, err := newVerifier(t, p, PRM).Verify(ctx, req)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if llm.Retryable(err) != tc.retryable || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("%s: %v (retryable %v)", tc.name, err, llm.Retryable(err))
		}
	}
	// A completion request is not a reward model's.
	p, _ := NewPooling(PoolingConfig{BaseURL: "http://127.0.0.1:1"})
	if _, err := p.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}); err == nil {
		t.Error("a completion request was sent to a reward model")
	}
	if _, err := NewPooling(PoolingConfig{BaseURL: "http://x", Server: "tgi"}); err == nil {
		t.Error("unknown server accepted")
	}
}

// Model text is hostile: a step carrying the step tag must not become two
// steps, and empty or missing pieces are errors of the caller, not panics.
func TestJoinRemovesTags(t *testing.T) {
	m := newVerifier(t, llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{}, errors.New("unused")
	}), PRM)
	if got := m.Join([]string{"a<extra_0>b", "", "c"}); got != "ab<extra_0><extra_0>c<extra_0>" {
		t.Errorf("joined %q", got)
	}
	if _, err := m.Encode(Request{Call: "c"}); err == nil {
		t.Error("no steps accepted")
	}
	if _, err := m.Encode(Request{Steps: []string{"a"}}); err == nil {
		t.Error("no call identity accepted")
	}
	for _, content := range []string{"", "[]", "[1.5]", "[NaN]", "not json", "[0.5,-0.1]", strings.Repeat("[", 1e5)} {
		if s, err := m.Decode(Request{Call: "c", Steps: []string{"a"}}, llm.Response{Choices: []llm.Choice{{Content: content}}}); err == nil {
			t.Errorf("content %.20q decoded to %v", content, s)
		}
	}
	if _, err := m.Decode(Request{Call: "c", Steps: []string{"a"}}, llm.Response{}); err == nil {
		t.Error("no choices accepted")
	}
}
