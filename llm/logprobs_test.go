package llm

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"
)

// logprobSampler answers "Yes" with first-token log probabilities when the
// request asks for them.
func logprobSampler(got *Request) Sampler {
	return SamplerFunc(func(_ context.Context, req Request) (Response, error) {
		*got = req
		c := Choice{Content: "Yes"}
		if req.TopLogprobs > 0 {
			c.Logprobs = []TokenLogprob{{Token: "Yes", Logprob: math.Log(0.75),
				Top: []TopLogprob{{Token: "Yes", Logprob: math.Log(0.75)}, {Token: "No", Logprob: math.Log(0.25)}}}}
		}
		return Response{Choices: []Choice{c}, Usage: Usage{PromptTokens: 3, CompletionTokens: 1}}, nil
	})
}

// Log probabilities go out as logprobs/top_logprobs from the OpenAI
// client, reach the sampler behind llm.Server as TopLogprobs, and come back
// in OpenAI's shape to the client's choices; not asked, none come back.
func TestLogprobsRoundTrip(t *testing.T) {
	var got Request
	ts := httptest.NewServer(NewServer(logprobSampler(&got), ServerOptions{}))
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{{Role: "user", Content: "Correct?"}}, TopLogprobs: 4}
	resp, err := c.Sample(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.TopLogprobs != 4 {
		t.Errorf("the server's sampler was asked top_logprobs %d, want 4", got.TopLogprobs)
	}
	lp := resp.Choices[0].Logprobs
	if len(lp) != 1 || lp[0].Token != "Yes" || math.Abs(lp[0].Logprob-math.Log(0.75)) > 1e-12 ||
		len(lp[0].Top) != 2 || lp[0].Top[1].Token != "No" || math.Abs(lp[0].Top[1].Logprob-math.Log(0.25)) > 1e-12 {
		t.Errorf("logprobs %+v", lp)
	}
	req.TopLogprobs = 0
	resp, err = c.Sample(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.TopLogprobs != 0 || resp.Choices[0].Logprobs != nil {
		t.Errorf("not asked: sampler got top_logprobs %d, client got %+v", got.TopLogprobs, resp.Choices[0].Logprobs)
	}
	// A reward request is not a completion: the client refuses it.
	if _, err := c.Sample(context.Background(), Request{Messages: req.Messages, Reward: &Reward{Kind: "prm"}}); err == nil {
		t.Error("the OpenAI client sent a reward request")
	}
}

func TestServerLogprobsValidation(t *testing.T) {
	var got Request
	ts := httptest.NewServer(NewServer(logprobSampler(&got), ServerOptions{}))
	defer ts.Close()
	for _, tc := range []struct {
		body string
		code int
		top  int
	}{
		{`{"messages":[{"role":"user","content":"x"}],"logprobs":true}`, 200, 1},
		{`{"messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":0}`, 200, 1},
		{`{"messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":20}`, 200, 20},
		{`{"messages":[{"role":"user","content":"x"}],"top_logprobs":3}`, 400, 0},
		{`{"messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":21}`, 400, 0},
		{`{"messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":-1}`, 400, 0},
	} {
		got = Request{}
		code, _, m := postJSON(t, ts.URL+"/v1/chat/completions", tc.body)
		if code != tc.code || got.TopLogprobs != tc.top {
			t.Errorf("%s: %d (sampler top_logprobs %d), want %d (%d): %v", tc.body, code, got.TopLogprobs, tc.code, tc.top, m)
		}
		if code == 200 {
			ch := m["choices"].([]any)[0].(map[string]any)
			if lp, ok := ch["logprobs"].(map[string]any); !ok || len(lp["content"].([]any)) != 1 {
				t.Errorf("%s: logprobs %v", tc.body, ch["logprobs"])
			}
		}
	}
	code, _, m := postJSON(t, ts.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`)
	if ch := m["choices"].([]any)[0].(map[string]any); code != 200 || ch["logprobs"] != nil {
		t.Errorf("not asked: %d, logprobs %v (want null)", code, ch["logprobs"])
	}
}
