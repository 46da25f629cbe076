package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// thinkingSampler answers like fakeSampler, with reasoning tokens counted.
type thinkingSampler struct{ fakeSampler }

func (s *thinkingSampler) Sample(ctx context.Context, req Request) (Response, error) {
	resp, err := s.fakeSampler.Sample(ctx, req)
	resp.Usage.ReasoningTokens = 2 * len(resp.Choices)
	resp.Usage.CompletionTokens += resp.Usage.ReasoningTokens
	return resp, err
}

// sdkClient is openai-go's own client against a local server.
func sdkClient(t *testing.T, o ServerOptions) (openai.Client, *thinkingSampler) {
	t.Helper()
	fake := &thinkingSampler{}
	ts := httptest.NewServer(NewServer(fake, o))
	t.Cleanup(ts.Close)
	return openai.NewClient(option.WithBaseURL(ts.URL+"/v1"), option.WithAPIKey("sk-local"), option.WithMaxRetries(0)), fake
}

// TestStreamingChatSDK drives the server with openai-go's streaming client:
// the accumulated chunks are the non-streamed response, reasoning arrives
// in its field, and include_usage ends the stream with a usage chunk.
func TestStreamingChatSDK(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  ServerOptions
		usage bool
	}{
		{"include_usage", ServerOptions{}, true},
		{"no usage asked", ServerOptions{}, false},
		{"server without usage", ServerOptions{NoUsage: true}, true},
		{"reasoning field", ServerOptions{ReasoningField: "reasoning"}, true},
		{"think inline", ServerOptions{ThinkInline: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, _ := sdkClient(t, tc.opts)
			params := openai.ChatCompletionNewParams{
				Model:    "sim",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("stream me a longer answer, please")},
				N:        openai.Int(3), Seed: openai.Int(5),
			}
			plain, err := client.Chat.Completions.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			if tc.usage {
				params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
			stream := client.Chat.Completions.NewStreaming(context.Background(), params)
			var acc openai.ChatCompletionAccumulator
			reasoning := map[int64]string{}
			chunks, usageChunks := 0, 0
			for stream.Next() {
				ch := stream.Current()
				chunks++
				acc.AddChunk(ch)
				for _, c := range ch.Choices {
					reasoning[c.Index] += rawString(c.Delta.JSON.ExtraFields[fieldOr(tc.opts.ReasoningField)].Raw())
				}
				if len(ch.Choices) == 0 {
					usageChunks++
					if ch.Usage.CompletionTokensDetails.ReasoningTokens != 6 || ch.Usage.TotalTokens == 0 {
						t.Errorf("usage chunk %+v", ch.Usage)
					}
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			if chunks < 3*4 {
				t.Errorf("%d chunks: the answer was not streamed in pieces", chunks)
			}
			wantUsage := 0
			if tc.usage && !tc.opts.NoUsage {
				wantUsage = 1
			}
			if usageChunks != wantUsage {
				t.Errorf("%d usage chunks, want %d", usageChunks, wantUsage)
			}
			if len(acc.Choices) != 3 {
				t.Fatalf("accumulated %d choices", len(acc.Choices))
			}
			for i, c := range acc.Choices {
				want := plain.Choices[i]
				if c.Message.Content != want.Message.Content || c.FinishReason != want.FinishReason {
					t.Errorf("choice %d streamed %q (%s), plain %q (%s)", i, c.Message.Content, c.FinishReason, want.Message.Content, want.FinishReason)
				}
				wantReasoning := rawString(want.Message.JSON.ExtraFields[fieldOr(tc.opts.ReasoningField)].Raw())
				if reasoning[int64(i)] != wantReasoning {
					t.Errorf("choice %d reasoning streamed %q, plain %q", i, reasoning[int64(i)], wantReasoning)
				}
				if tc.opts.ThinkInline != strings.HasPrefix(c.Message.Content, "<think>\n") {
					t.Errorf("choice %d content %q with ThinkInline %v", i, c.Message.Content, tc.opts.ThinkInline)
				}
				if !tc.opts.ThinkInline && !strings.HasPrefix(wantReasoning, "thinking ") {
					t.Errorf("choice %d: reasoning %q not in field %s", i, wantReasoning, fieldOr(tc.opts.ReasoningField))
				}
			}
		})
	}
}

func fieldOr(name string) string {
	if name == "" {
		return DefaultReasoningField
	}
	return name
}

func rawString(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

func TestStreamingToolCallsSDK(t *testing.T) {
	client, _ := sdkClient(t, ServerOptions{})
	params := openai.ChatCompletionNewParams{
		Model:    "sim",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("use the tool")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: "calc", Parameters: openai.FunctionParameters{"type": "object"}})},
		Seed: openai.Int(3),
	}
	stream := client.Chat.Completions.NewStreaming(context.Background(), params)
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	c := acc.Choices[0]
	if c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Name != "calc" ||
		c.Message.ToolCalls[0].Function.Arguments != `{"seed":3}` || c.Message.ToolCalls[0].ID == "" {
		t.Errorf("streamed tool call: %+v", c)
	}
}

// TestStreamingCompletionsSDK: /v1/completions streams with openai-go's
// client too, text pieces per choice and a final usage chunk.
func TestStreamingCompletionsSDK(t *testing.T) {
	client, fake := sdkClient(t, ServerOptions{})
	params := openai.CompletionNewParams{
		Model:  "sim",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Q: stream this\nA:")},
		N:      openai.Int(2), Seed: openai.Int(9), MaxTokens: openai.Int(50), Temperature: openai.Float(0.7),
		Stop: openai.CompletionNewParamsStopUnion{OfStringArray: []string{"\nQ:"}},
	}
	plain, err := client.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Object != "text_completion" || len(plain.Choices) != 2 || plain.Usage.TotalTokens == 0 {
		t.Fatalf("completion %+v", plain)
	}
	got := fake.requests()[0]
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content != "Q: stream this\nA:" ||
		got.N != 2 || got.Seed != 9 || got.MaxTokens != 50 || got.TemperatureOr(-1) != 0.7 || len(got.Stop) != 1 {
		t.Errorf("sampler saw %+v", got)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := client.Completions.NewStreaming(context.Background(), params)
	text := map[int64]string{}
	finish := map[int64]string{}
	var usage openai.CompletionUsage
	chunks := 0
	for stream.Next() {
		ch := stream.Current()
		chunks++
		for _, c := range ch.Choices {
			text[c.Index] += c.Text
			if c.FinishReason != "" {
				finish[c.Index] = string(c.FinishReason)
			}
		}
		if len(ch.Choices) == 0 {
			usage = ch.Usage
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if chunks < 2*3 {
		t.Errorf("%d chunks", chunks)
	}
	for i, c := range plain.Choices {
		if text[int64(i)] != c.Text || finish[int64(i)] != string(c.FinishReason) {
			t.Errorf("choice %d streamed %q (%s), plain %q (%s)", i, text[int64(i)], finish[int64(i)], c.Text, c.FinishReason)
		}
	}
	if usage.TotalTokens != plain.Usage.TotalTokens || usage.CompletionTokensDetails.ReasoningTokens != 4 {
		t.Errorf("usage chunk %+v, plain %+v", usage, plain.Usage)
	}
}

func TestPieces(t *testing.T) {
	for _, s := range []string{"", "one", "several words in a row\nand lines\n\n", strings.Repeat("x", 50), "héllo wörld ✓✓✓✓✓✓✓✓✓✓"} {
		ps := pieces(s)
		if strings.Join(ps, "") != s {
			t.Errorf("pieces(%q) = %q", s, ps)
		}
		for _, p := range ps {
			if p == "" || !json.Valid([]byte(`"`+strings.ReplaceAll(p, "\n", `\n`)+`"`)) {
				t.Errorf("pieces(%q): bad piece %q", s, p)
			}
		}
	}
}

// TestRejectParam: a server refusing a parameter answers 400 in OpenAI's
// shape, and the client reports which parameter.
func TestRejectParam(t *testing.T) {
	fake := &fakeSampler{}
	ts := httptest.NewServer(NewServer(fake, ServerOptions{RejectParams: []string{"temperature", "reasoning_effort"}}))
	defer ts.Close()
	code, _, m := postJSON(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}],"temperature":0.7}`)
	e, _ := m["error"].(map[string]any)
	if code != 400 || e["param"] != "temperature" || e["type"] != "invalid_request_error" || e["code"] != "unsupported_parameter" ||
		!strings.Contains(e["message"].(string), "'temperature'") {
		t.Errorf("rejection: %d %v", code, m)
	}
	if len(fake.requests()) != 0 {
		t.Error("a rejected request reached the sampler")
	}
	for _, api := range APIs {
		c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", API: api})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, Temperature: Temp(0.7)})
		pe, ok := RejectedParam(err)
		if !ok || pe.Param != "temperature" || !strings.Contains(pe.Message, "not supported") {
			t.Errorf("%s: err = %v, want a ParamError for temperature", api, err)
		}
		// Unsent, it passes; an extra field is refused the same way.
		if _, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}}); err != nil {
			t.Errorf("%s without temperature: %v", api, err)
		}
		_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, Extra: map[string]json.RawMessage{"reasoning_effort": json.RawMessage(`"high"`)}})
		if pe, ok := RejectedParam(err); !ok || pe.Param != "reasoning_effort" {
			t.Errorf("%s: err = %v, want a ParamError for reasoning_effort", api, err)
		}
	}
}

func TestRejectedParamWordings(t *testing.T) {
	for _, tc := range []struct {
		e    openai.Error
		want string
	}{
		{openai.Error{StatusCode: 400, Param: "max_tokens", Message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}, "max_tokens"},
		{openai.Error{StatusCode: 400, Message: "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported."}, "temperature"},
		{openai.Error{StatusCode: 400, Message: "Unrecognized request argument supplied: top_k"}, "top_k"},
		{openai.Error{StatusCode: 400, Message: "messages must not be empty"}, ""},
		{openai.Error{StatusCode: 429, Param: "temperature"}, ""},
		// llama.cpp refuses n > 1 with a 500 in some versions.
		{openai.Error{StatusCode: 500, Message: "Only one completion choice is allowed"}, "n"},
		{openai.Error{StatusCode: 400, Message: "Illegal param: only one completion choice is allowed"}, "n"},
	} {
		if got := rejectedParam(&tc.e); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.e.Message, got, tc.want)
		}
	}
	// A refused parameter is refused again: never retried, even on a 500.
	err := &ParamError{Param: "n", Err: &openai.Error{StatusCode: 500}}
	if Retryable(err) {
		t.Error("a ParamError with status 500 is retryable")
	}
}

// TestMaxN: with MaxN the client asks for at most that many choices a
// request and tops up the rest with seeds seed+i: the same choices as one
// request for all of them.
func TestMaxN(t *testing.T) {
	for _, tc := range []struct{ set, maxN, n int }{{1, 1, 7}, {3, 3, 7}, {0, MaxChoicesPerRequest, 300}} {
		maxN, n := tc.maxN, tc.n
		fake := &fakeSampler{}
		ts := httptest.NewServer(NewServer(fake, ServerOptions{}))
		c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", MaxN: tc.set})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: n, Seed: 100})
		ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		checkSeeds(t, resp, n, 100)
		want := (n + maxN - 1) / maxN
		if resp.Usage.Requests != want || len(fake.requests()) != want {
			t.Errorf("max n %d: %d requests, want %d", maxN, resp.Usage.Requests, want)
		}
		for _, r := range fake.requests() {
			if r.N > maxN {
				t.Errorf("max n %d: a request asked for %d", maxN, r.N)
			}
		}
	}
}

// TestCompletionsBackend: with API completions the client posts the one
// user turn as the prompt to /completions, tops up n as on chat, reads
// reasoning tokens, and refuses a conversation before any request.
func TestCompletionsBackend(t *testing.T) {
	fake := &thinkingSampler{}
	srv := NewServer(fake, ServerOptions{MaxN: 2, ReasoningField: "reasoning"})
	rec := &bodyRecorder{next: srv}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "base-model", API: APICompletions})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{userMsg("Q: 2+2?\nA:")}, N: 5, Seed: 40, Temperature: Temp(0.7), MaxTokens: 30, Stop: []string{"\n"},
		Extra: map[string]json.RawMessage{"top_k": json.RawMessage(`20`)}}
	resp, err := c.Sample(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 5 || resp.Usage.Requests != 3 || resp.Usage.ReasoningTokens != 10 {
		t.Fatalf("response %+v", resp)
	}
	checkSeeds(t, resp, 5, 40)
	if resp.Choices[0].Reasoning != "thinking 40" {
		t.Errorf("reasoning field not read: %+v", resp.Choices[0])
	}
	body := rec.last(t)
	if string(body["prompt"]) != `"Q: 2+2?\nA:"` || body["messages"] != nil || string(body["max_tokens"]) != "30" ||
		string(body["top_k"]) != "20" || string(body["stop"]) != `["\n"]` {
		t.Errorf("completions body %v", body)
	}
	before := srv.Requests()
	for _, bad := range []Request{
		{Messages: []Message{{Role: "system", Content: "s"}, userMsg("q")}},
		{Messages: []Message{userMsg("q")}, Tools: []ToolSpec{{Name: "f"}}},
	} {
		if _, err := c.Sample(context.Background(), bad); !errors.Is(err, ErrNeedsChat) {
			t.Errorf("%+v: err = %v, want ErrNeedsChat", bad, err)
		}
	}
	if srv.Requests() != before {
		t.Error("a conversation was sent to /completions")
	}
}

// TestExtraFieldsVerbatim: --param values reach the server as JSON, strings
// as strings and objects as objects.
func TestExtraFieldsVerbatim(t *testing.T) {
	tb := newTestBackend(t, ServerOptions{})
	extra := map[string]json.RawMessage{
		"reasoning_effort":     json.RawMessage(`"high"`),
		"chat_template_kwargs": json.RawMessage(`{"enable_thinking": false}`),
		"top_p":                json.RawMessage(`0.9`),
	}
	if _, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, Extra: extra}); err != nil {
		t.Fatal(err)
	}
	body := tb.rec.last(t)
	if string(body["reasoning_effort"]) != `"high"` || string(body["chat_template_kwargs"]) != `{"enable_thinking":false}` || string(body["top_p"]) != "0.9" {
		t.Errorf("body %v", body)
	}
	if _, err := tb.client.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, Extra: map[string]json.RawMessage{"x": json.RawMessage(`{`)}}); err == nil {
		t.Error("invalid JSON extra sent")
	}
}

func TestMaxTokensField(t *testing.T) {
	for _, tc := range []struct {
		model, field, api string
		want              string
	}{
		{"gpt-4o", "", "", "max_tokens"},
		{"Qwen/Qwen3-8B", MaxTokensAuto, "", "max_tokens"},
		{"o3-mini", "", "", "max_completion_tokens"},
		{"o1", "", "", "max_completion_tokens"},
		{"openai/gpt-5", "", "", "max_completion_tokens"},
		{"gpt-5.1-2025-11-13", "", "", "max_completion_tokens"},
		{"o4-mini", FieldMaxTokens, "", "max_tokens"},
		{"llama3", FieldMaxCompletionTokens, "", "max_completion_tokens"},
		{"o3-mini", "", APICompletions, "max_tokens"}, // the completions API has only max_tokens
		{"octopus-7b", "", "", "max_tokens"},
	} {
		fake := &fakeSampler{}
		rec := &bodyRecorder{next: NewServer(fake, ServerOptions{})}
		ts := httptest.NewServer(rec)
		c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: tc.model, MaxTokensField: tc.field, API: tc.api})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, MaxTokens: 77}); err != nil {
			t.Fatal(err)
		}
		body := rec.last(t)
		ts.Close()
		other := "max_tokens"
		if tc.want == other {
			other = "max_completion_tokens"
		}
		if string(body[tc.want]) != "77" || body[other] != nil || fake.requests()[0].MaxTokens != 77 {
			t.Errorf("%s field=%q api=%q: body %v, want %s", tc.model, tc.field, tc.api, body, tc.want)
		}
	}
	if _, err := NewOpenAI(OpenAIConfig{Model: "m", MaxTokensField: "max_length"}); err == nil {
		t.Error("unknown field accepted")
	}
	if _, err := NewOpenAI(OpenAIConfig{Model: "m", API: "responses"}); err == nil {
		t.Error("unknown API accepted")
	}
}

// TestNoUsage: a server that reports no usage leaves the counts at 0; the
// call still succeeds.
func TestNoUsage(t *testing.T) {
	fake := &fakeSampler{}
	ts := httptest.NewServer(NewServer(fake, ServerOptions{NoUsage: true}))
	defer ts.Close()
	_, _, m := postJSON(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	if _, ok := m["usage"]; ok {
		t.Errorf("usage sent: %v", m["usage"])
	}
	for _, api := range APIs {
		c, _ := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", API: api})
		resp, err := c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, N: 2})
		if err != nil || len(resp.Choices) != 2 || resp.Usage.PromptTokens != 0 || resp.Usage.CompletionTokens != 0 || resp.Usage.Requests != 1 {
			t.Errorf("%s: %+v %v", api, resp, err)
		}
	}
}
