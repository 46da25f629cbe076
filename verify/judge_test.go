package verify

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator"
)

// judgeModel answers every request with the given answers in turn, with
// log probabilities for the first token when logprobs is set.
func judgeModel(answers []string, pYes float64, logprobs bool) llm.Sampler {
	return llm.SamplerFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		var resp llm.Response
		for i := range req.Samples() {
			c := llm.Choice{Index: i, Content: answers[i%len(answers)]}
			if logprobs && req.TopLogprobs > 0 {
				c.Logprobs = []llm.TokenLogprob{{Token: c.Content, Logprob: math.Log(pYes),
					Top: []llm.TopLogprob{{Token: "Yes", Logprob: math.Log(pYes)}, {Token: " no", Logprob: math.Log(1 - pYes - 0.05)}, {Token: "Maybe", Logprob: math.Log(0.05)}}}}
			}
			resp.Choices = append(resp.Choices, c)
		}
		resp.Usage = llm.Usage{PromptTokens: 50, CompletionTokens: req.Samples(), Requests: 1}
		return resp, nil
	})
}

// serve puts a sampler behind the OpenAI-compatible llm.Server on
// loopback, recording the request bodies.
func serve(t *testing.T, s llm.Sampler, bodies *[]map[string]any) *llm.OpenAI {
	t.Helper()
	h := llm.NewServer(s, llm.ServerOptions{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		*bodies = append(*bodies, body)
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "judge", APIKey: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLLMVerifierOverOpenAIServer(t *testing.T) {
	ctx := context.Background()
	req := Request{Call: "s1/verify", Problem: "What is 2+3?", Steps: []string{"2 + 3 = 5", "\\boxed{5}"}}

	// With log probabilities: P(Yes)/(P(Yes)+P(No)) at the first token,
	// "Maybe" left out and " no" read as No.
	var bodies []map[string]any
	m := newVerifier(t, serve(t, judgeModel([]string{"Yes"}, 0.7, true), &bodies), LLM)
	s, err := m.Verify(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.7 / 0.95; len(s) != 1 || math.Abs(s[0]-want) > 1e-9 {
		t.Errorf("P(Yes) %v, want %v", s, want)
	}
	b := bodies[0]
	if b["logprobs"] != true || b["top_logprobs"] != float64(judgeTopLogprobs) || b["max_tokens"] != float64(judgeMaxTokens) {
		t.Errorf("request %v: want logprobs true, top_logprobs %d, max_tokens %d", b, judgeTopLogprobs, judgeMaxTokens)
	}
	msgs := b["messages"].([]any)
	text := msgs[0].(map[string]any)["content"].(string)
	if !strings.Contains(text, "What is 2+3?") || !strings.Contains(text, "2 + 3 = 5\n\\boxed{5}") || !strings.Contains(text, "Yes or No") {
		t.Errorf("judge prompt %q", text)
	}

	// Without log probabilities: the vote of the samples.
	bodies = nil
	m, err = New(serve(t, judgeModel([]string{"Yes.", "no", "**Yes**", "I think so"}, 0, false), &bodies), Options{Kind: LLM, Samples: 8, Prompts: m.o.Prompts})
	if err != nil {
		t.Fatal(err)
	}
	s, err = m.Verify(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || s[0] != 0.5 {
		t.Errorf("vote %v, want 0.5 (4 of 8 say yes)", s)
	}
	if bodies[0]["n"] != float64(8) {
		t.Errorf("n %v, want 8", bodies[0]["n"])
	}
}

func TestJudgeScore(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp llm.Response
		want float64
	}{
		{"nothing", llm.Response{}, 0},
		{"empty answer", llm.Response{Choices: []llm.Choice{{Content: ""}}}, 0},
		{"garbage", llm.Response{Choices: []llm.Choice{{Content: "\x00\xff{{"}}}, 0},
		{"leading blank token", llm.Response{Choices: []llm.Choice{{Content: "No", Logprobs: []llm.TokenLogprob{
			{Token: " "}, {Token: "No", Logprob: math.Log(0.8), Top: []llm.TopLogprob{{Token: "No", Logprob: math.Log(0.8)}, {Token: "YES", Logprob: math.Log(0.2)}}}}}}}, 0.2},
		{"neither among alternatives: the vote", llm.Response{Choices: []llm.Choice{{Content: "Yes", Logprobs: []llm.TokenLogprob{
			{Token: "Sure", Logprob: -0.1, Top: []llm.TopLogprob{{Token: "Sure", Logprob: -0.1}}}}}}}, 1},
		{"positive logprob ignored", llm.Response{Choices: []llm.Choice{{Content: "No", Logprobs: []llm.TokenLogprob{
			{Token: "No", Logprob: -0.1, Top: []llm.TopLogprob{{Token: "Yes", Logprob: 3}, {Token: "No", Logprob: -0.1}}}}}}}, 0},
	} {
		if got := JudgeScore(tc.resp); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The simulated verifier answers alike in process and behind the stand-in
// servers serve-sim runs (vLLM's /pooling, SGLang's /classify).
func TestSimVerifierOverPoolingServer(t *testing.T) {
	model, err := simulator.New(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	ps := NewPoolingServer(model, DefaultSep, "sim")
	srv := httptest.NewServer(ps)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	reqs := []Request{
		{Call: "a", Problem: "Tom has 3 bags of 4 apples.", Steps: []string{"3 * 4 = 12 apples.", "He eats 2: 12 - 2 = 11.", "The answer is 11."}},
		{Call: "b", Problem: "4 4 6 8", Steps: []string{"4 + 8 = 12 (left: 4 6 12)", "6 - 4 = 2 (left: 2 12)", "2 * 12 = 24 (left: 24)", "Answer: (6 - 4) * (4 + 8) = 24"}},
		{Call: "c", Problem: "Write a poem.", Steps: []string{"Roses are red."}},
	}
	for _, kind := range []string{PRM, ORM} {
		local := newVerifier(t, model, kind)
		for _, server := range Servers {
			p, err := NewPooling(PoolingConfig{BaseURL: srv.URL, Model: "sim", Server: server})
			if err != nil {
				t.Fatal(err)
			}
			remote := newVerifier(t, p, kind)
			for _, r := range reqs {
				want, err := local.Verify(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				got, err := remote.Verify(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%s %s %s: %v, in process %v", kind, server, r.Call, got, want)
				}
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-9 {
						t.Errorf("%s %s %s: %v, in process %v", kind, server, r.Call, got, want)
					}
				}
			}
		}
	}
	if ps.Requests() == 0 {
		t.Error("the stand-in server was never asked")
	}
}
