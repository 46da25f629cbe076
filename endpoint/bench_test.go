package endpoint

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// instant is a model that answers at once: what remains is the endpoint.
var instant = llm.SamplerFunc(func(_ context.Context, r llm.Request) (llm.Response, error) {
	return llm.Response{Choices: []llm.Choice{{Content: "Answer: 4 * 6 = 24"}}, Usage: llm.Usage{PromptTokens: 30, CompletionTokens: 8, Requests: 1}}, nil
})

const benchBody = `{"model":"m","messages":[{"role":"system","content":"Solve the puzzle step by step."},{"role":"user","content":"Use the four input numbers and basic arithmetic operations to obtain 24. Input: 4 4 6 8"}],"n":1,"temperature":0.7}`

// BenchmarkEndpointCall is one chat call of a program through the
// recording endpoint (HTTP on loopback with keep-alive, token check,
// decoding, content identity, encoding) to a model that answers at once:
// the overhead a program's call has over a built-in strategy's.
func BenchmarkEndpointCall(b *testing.B) {
	token, _ := NewToken()
	log := &Log{}
	srv := ItemServer(instant, "program", log)
	l, err := Listen("127.0.0.1:0", token, &Handler{Token: token, Log: log, Item: func(int) (http.Handler, error) { return srv, nil }})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	client := &http.Client{}
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, l.URL+"/chat/completions", strings.NewReader(benchBody))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.Status)
		}
	}
}

// BenchmarkDirectCall is the same call made in process, as a built-in
// strategy makes it: the baseline BenchmarkEndpointCall is compared with.
func BenchmarkDirectCall(b *testing.B) {
	s := Identity("program")(instant)
	req := llm.Request{Messages: []llm.Message{{Role: "system", Content: "Solve the puzzle step by step."},
		{Role: "user", Content: "Use the four input numbers and basic arithmetic operations to obtain 24. Input: 4 4 6 8"}}, N: 1, Temperature: llm.Temp(0.7)}
	ctx := withCall(context.Background(), "", APIChat)
	for b.Loop() {
		if _, err := s.Sample(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
