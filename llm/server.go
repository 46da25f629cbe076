package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// ServerOptions shapes how a Server behaves like the servers it imitates.
type ServerOptions struct {
	Latency time.Duration // added before answering each request (honours request ctx cancellation)
	MaxN    int           // cap on choices per request (0 = no cap) — simulates servers that honour n only up to a limit
	IgnoreN bool          // behave like Ollama: always 1 choice
}

// Server is an OpenAI-compatible HTTP server over any Sampler. It serves
// POST /v1/chat/completions (also /chat/completions) and GET /v1/models
// (also /models), listing the one model "sim".
type Server struct {
	s        Sampler
	o        ServerOptions
	requests atomic.Int64
	ids      atomic.Int64
}

// maxRequestBody bounds the JSON a client may send.
const maxRequestBody = 32 << 20

// NewServer returns an http.Handler serving s over the OpenAI chat API.
func NewServer(s Sampler, o ServerOptions) *Server {
	return &Server{s: s, o: o}
}

// Requests returns how many chat-completion requests have arrived
// (malformed ones included).
func (sv *Server) Requests() int64 { return sv.requests.Load() }

// ServeHTTP implements http.Handler.
func (sv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	path = strings.TrimPrefix(path, "/v1")
	switch path {
	case "/chat/completions":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use POST for "+r.URL.Path)
			return
		}
		sv.requests.Add(1)
		sv.chat(w, r)
	case "/models":
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use GET for "+r.URL.Path)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"object": "list",
			"data":   []any{map[string]any{"id": "sim", "object": "model", "created": 0, "owned_by": "reasonbench"}},
		})
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown path "+r.URL.Path)
	}
}

// Wire types of the OpenAI chat API (the parts we use).
type (
	wireRequest struct {
		Model               string          `json:"model"`
		Messages            []wireMessage   `json:"messages"`
		N                   *int            `json:"n"`
		Temperature         *float64        `json:"temperature"`
		MaxTokens           *int            `json:"max_tokens"`
		MaxCompletionTokens *int            `json:"max_completion_tokens"`
		Stop                json.RawMessage `json:"stop"`
		Seed                *int64          `json:"seed"`
		Tools               []wireTool      `json:"tools"`
	}
	wireMessage struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		Name             string          `json:"name"`
		ToolCalls        []wireToolCall  `json:"tool_calls"`
		ToolCallID       string          `json:"tool_call_id"`
		ReasoningContent string          `json:"reasoning_content"`
		Reasoning        string          `json:"reasoning"`
	}
	wireToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	wireTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	wireResponse struct {
		ID      string       `json:"id"`
		Object  string       `json:"object"`
		Created int64        `json:"created"`
		Model   string       `json:"model"`
		Choices []wireChoice `json:"choices"`
		Usage   wireUsage    `json:"usage"`
	}
	wireChoice struct {
		Index        int             `json:"index"`
		Message      wireRespMessage `json:"message"`
		Logprobs     *struct{}       `json:"logprobs"`
		FinishReason string          `json:"finish_reason"`
	}
	wireRespMessage struct {
		Role             string         `json:"role"`
		Content          *string        `json:"content"`
		ReasoningContent string         `json:"reasoning_content,omitempty"`
		ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	}
	wireUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
)

func (sv *Server) chat(w http.ResponseWriter, r *http.Request) {
	var wr wireRequest
	body := http.MaxBytesReader(w, r.Body, maxRequestBody)
	err := json.NewDecoder(body).Decode(&wr)
	// Drain the body: only once it is consumed does net/http watch the
	// connection, so that a client hanging up cancels r.Context().
	_, _ = io.Copy(io.Discard, body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "malformed JSON body: "+err.Error())
		return
	}
	req, err := wr.toRequest()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if sv.o.IgnoreN {
		req.N = 1
	} else if sv.o.MaxN > 0 && req.N > sv.o.MaxN {
		req.N = sv.o.MaxN
	}

	ctx := r.Context()
	if sv.o.Latency > 0 {
		if sleepCtx(ctx, sv.o.Latency) != nil {
			return // client gone
		}
	}
	resp, err := sv.s.Sample(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return // client gone
		}
		writeError(w, http.StatusInternalServerError, "server_error", "sampler: "+err.Error())
		return
	}

	id := sv.ids.Add(1)
	out := wireResponse{
		ID:      fmt.Sprintf("chatcmpl-sim-%d", id),
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   wr.Model,
		Choices: make([]wireChoice, len(resp.Choices)),
		Usage: wireUsage{
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens:      resp.Usage.PromptTokens + resp.Usage.CompletionTokens,
		},
	}
	for i, c := range resp.Choices {
		msg := wireRespMessage{Role: "assistant", ReasoningContent: c.Reasoning}
		if c.Content != "" || len(c.ToolCalls) == 0 {
			content := c.Content
			msg.Content = &content
		}
		for j, tc := range c.ToolCalls {
			wtc := wireToolCall{ID: tc.ID, Type: "function"}
			if wtc.ID == "" {
				wtc.ID = fmt.Sprintf("call_%d_%d_%d", id, i, j)
			}
			wtc.Function.Name, wtc.Function.Arguments = tc.Name, tc.Arguments
			msg.ToolCalls = append(msg.ToolCalls, wtc)
		}
		finish := "stop"
		if len(c.ToolCalls) > 0 {
			finish = "tool_calls"
		} else if c.FinishReason != "" {
			finish = c.FinishReason
		}
		out.Choices[i] = wireChoice{Index: i, Message: msg, FinishReason: finish}
	}
	writeJSON(w, http.StatusOK, out)
}

func (wr *wireRequest) toRequest() (Request, error) {
	req := Request{Temperature: 1} // the OpenAI default
	if len(wr.Messages) == 0 {
		return req, errors.New("messages: must be a non-empty array")
	}
	if wr.N != nil {
		if *wr.N < 1 {
			return req, fmt.Errorf("n: must be at least 1, got %d", *wr.N)
		}
		req.N = *wr.N
	}
	if req.N == 0 {
		req.N = 1
	}
	if wr.Temperature != nil {
		req.Temperature = *wr.Temperature
	}
	if wr.MaxCompletionTokens != nil {
		req.MaxTokens = *wr.MaxCompletionTokens
	} else if wr.MaxTokens != nil {
		req.MaxTokens = *wr.MaxTokens
	}
	if wr.Seed != nil {
		req.Seed = *wr.Seed
	}
	stop, err := decodeStop(wr.Stop)
	if err != nil {
		return req, err
	}
	req.Stop = stop
	for i, m := range wr.Messages {
		content, err := decodeContent(m.Content)
		if err != nil {
			return req, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return req, fmt.Errorf("messages[%d].role: unknown role %q", i, m.Role)
		}
		msg := Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID, Name: m.Name, Reasoning: m.ReasoningContent}
		if msg.Reasoning == "" {
			msg.Reasoning = m.Reasoning
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for i, t := range wr.Tools {
		if t.Type != "" && t.Type != "function" {
			return req, fmt.Errorf("tools[%d].type: only \"function\" is supported, got %q", i, t.Type)
		}
		if t.Function.Name == "" {
			return req, fmt.Errorf("tools[%d].function.name: required", i)
		}
		spec := ToolSpec{Name: t.Function.Name, Description: t.Function.Description}
		if p := bytes.TrimSpace(t.Function.Parameters); len(p) > 0 && string(p) != "null" {
			spec.Parameters = json.RawMessage(p)
		}
		req.Tools = append(req.Tools, spec)
	}
	return req, nil
}

// decodeStop accepts null, a string or an array of strings.
func decodeStop(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("stop: must be a string or an array of strings")
	}
	return many, nil
}

// decodeContent accepts null, a string or an array of {type:"text", text}
// parts, joined with newlines.
func decodeContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or an array of content parts")
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("unsupported content part type %q (only \"text\")", p.Type)
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"cannot encode response","type":"server_error","param":null,"code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
}
