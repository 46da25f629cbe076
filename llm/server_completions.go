package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
)

// Wire types of the OpenAI completions API (the parts we use).
type (
	wireCompletionRequest struct {
		Model         string          `json:"model"`
		Prompt        json.RawMessage `json:"prompt"`
		N             *int            `json:"n"`
		Temperature   *float64        `json:"temperature"`
		MaxTokens     *int            `json:"max_tokens"`
		Stop          json.RawMessage `json:"stop"`
		Seed          *int64          `json:"seed"`
		Stream        bool            `json:"stream"`
		StreamOptions *streamOptions  `json:"stream_options"`
	}
	wireCompletionResponse struct {
		ID          string                 `json:"id"`
		Object      string                 `json:"object"`
		Created     int64                  `json:"created"`
		Model       string                 `json:"model"`
		Fingerprint string                 `json:"system_fingerprint,omitempty"`
		Choices     []wireCompletionChoice `json:"choices"`
		Usage       *wireUsage             `json:"usage,omitempty"`
	}
	wireCompletionChoice map[string]any // text, index, logprobs, finish_reason and the reasoning field
)

// completions serves /v1/completions: the prompt is answered as one user
// turn, which is what the harness's completions client sends.
func (sv *Server) completions(w http.ResponseWriter, r *http.Request) {
	var wr wireCompletionRequest
	meta, choices, usage, ok := sv.answer(w, r, &wr, "cmpl-sim-")
	if !ok {
		return
	}
	if wr.Stream {
		sv.streamCompletion(w, meta, choices, usage, wr.StreamOptions.includeUsage())
		return
	}
	out := wireCompletionResponse{ID: meta.id, Object: "text_completion", Created: meta.created, Model: meta.model, Fingerprint: meta.fingerprint,
		Choices: make([]wireCompletionChoice, len(choices)), Usage: sv.usage(usage)}
	for i, c := range choices {
		out.Choices[i] = sv.completionChoice(i, c.text(), c.reasoning, &c.finish)
	}
	writeJSON(w, http.StatusOK, out)
}

// text is a choice's content as completion text ("" for none).
func (c outChoice) text() string {
	if c.content == nil {
		return ""
	}
	return *c.content
}

// completionChoice is one choice (or one chunk of it) of a completion.
func (sv *Server) completionChoice(i int, text, reasoning string, finish *string) wireCompletionChoice {
	c := wireCompletionChoice{"index": i, "text": text, "logprobs": nil, "finish_reason": finish}
	if reasoning != "" {
		c[sv.o.ReasoningField] = reasoning
	}
	return c
}

func (wr *wireCompletionRequest) model() string { return wr.Model }

func (wr *wireCompletionRequest) toRequest() (Request, error) {
	prompt, err := decodePrompt(wr.Prompt)
	if err != nil {
		return Request{}, err
	}
	req := Request{Messages: []Message{{Role: "user", Content: prompt}}, N: 1, Temperature: wr.Temperature}
	if req.N, err = choicesWanted(wr.N); err != nil {
		return req, err
	}
	if wr.MaxTokens != nil {
		req.MaxTokens = *wr.MaxTokens
	}
	if wr.Seed != nil {
		req.Seed = *wr.Seed
	}
	req.Stop, err = decodeStop(wr.Stop)
	return req, err
}

// decodePrompt accepts a string or an array holding one string.
func decodePrompt(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("prompt: required")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one, nil
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) == 1 {
		return many[0], nil
	}
	return "", errors.New("prompt: want a string or an array of one string (token arrays and batches are not supported)")
}
