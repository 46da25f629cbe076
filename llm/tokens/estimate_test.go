package tokens

import (
	"context"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

func TestEstimateMissing(t *testing.T) {
	c, err := ForModel("gpt-4")
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "What is 6 times 7?"}}}
	answer := llm.Response{Choices: []llm.Choice{{Content: "42"}, {Content: "It is 42."}}, Usage: llm.Usage{Requests: 1}}
	cases := []struct {
		name    string
		resp    llm.Response
		want    llm.Usage
		unknown bool
	}{
		{"no usage", answer, llm.Usage{PromptTokens: c.Prompt(req.Messages, nil), CompletionTokens: c.Text("42") + c.Text("It is 42."), Requests: 1, Estimated: true}, false},
		{"server usage kept", llm.Response{Choices: answer.Choices, Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 4, Requests: 1}},
			llm.Usage{PromptTokens: 3, CompletionTokens: 4, Requests: 1}, false},
		{"two requests read the prompt twice", llm.Response{Choices: answer.Choices, Usage: llm.Usage{Requests: 2}},
			llm.Usage{PromptTokens: 2 * c.Prompt(req.Messages, nil), CompletionTokens: c.Text("42") + c.Text("It is 42."), Requests: 2, Estimated: true}, false},
	}
	for _, tc := range cases {
		s := EstimateMissing(c)(llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) { return tc.resp, nil }))
		got, err := s.Sample(context.Background(), req)
		if err != nil || got.Usage != tc.want {
			t.Errorf("%s: usage %+v (%v), want %+v", tc.name, got.Usage, err, tc.want)
		}
	}
	// A reward model reports no usage: its prompt is counted, its scores
	// are no completion.
	reward := req
	reward.Reward = &llm.Reward{Kind: "prm", Sep: "<extra_0>"}
	s := EstimateMissing(c)(llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Choices: []llm.Choice{{Content: "[0.91,0.12]"}}, Usage: llm.Usage{Requests: 1}}, nil
	}))
	got, err := s.Sample(context.Background(), reward)
	if want := (llm.Usage{PromptTokens: c.Prompt(req.Messages, nil), Requests: 1, Estimated: true}); err != nil || got.Usage != want {
		t.Errorf("reward: usage %+v (%v), want %+v", got.Usage, err, want)
	}
	if c.Prompt(req.Messages, nil) == 0 {
		t.Fatal("the prompt counts no tokens")
	}
}
