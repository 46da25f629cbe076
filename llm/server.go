package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// ServerOptions shapes how a Server behaves like the servers it imitates.
type ServerOptions struct {
	Latency time.Duration // added before answering each request (honours request ctx cancellation)
	MaxN    int           // cap on choices per request (0 = no cap) — simulates servers that honour n only up to a limit
	IgnoreN bool          // behave like Ollama: always 1 choice
	// ThinkInline writes a choice's reasoning into its content as
	// "<think>\n…\n</think>\n\n" before the answer, as a thinking model
	// served without a reasoning parser does.
	ThinkInline bool
	// ReasoningField names the message (or completion choice) field that
	// carries reasoning otherwise; "" means "reasoning_content".
	ReasoningField string
	// RejectParams are request fields answered with a 400 naming them, in
	// OpenAI's error shape, as reasoning models refuse temperature.
	RejectParams []string
	// NoUsage leaves usage out of every response, as some servers do.
	NoUsage bool
	// Fingerprint, when set, is every answer's system_fingerprint (bench
	// serve-sim's says it is the simulator).
	Fingerprint string
	// Card is merged into each model's entry of /v1/models (serve-sim's
	// parameters under SimCardField).
	Card map[string]any
	// Served, when set, are the only model names answered, as vLLM's
	// --served-model-name: another name is vLLM's 404, and /v1/models
	// lists them. Empty: any name is answered and "sim" is listed.
	Served []string
	// V1Only serves the API only under /v1, as vLLM does (a path without
	// it is a 404).
	V1Only bool
}

// SimCardField is the field of a /v1/models entry in which bench
// serve-sim gives its simulator parameters: a server with it is the
// simulator, whatever model name it answers to.
const SimCardField = "reasonbench_sim"

// DefaultReasoningField is where a Server puts reasoning by default.
const DefaultReasoningField = "reasoning_content"

// Server is an OpenAI-compatible HTTP server over any Sampler. It serves
// POST /v1/chat/completions and /v1/completions (also without /v1 unless
// V1Only), each as one JSON body or, with "stream": true, as server-sent
// events; and GET /v1/models, listing the served names (or "sim").
type Server struct {
	s        Sampler
	o        ServerOptions
	requests atomic.Int64
	ids      atomic.Int64
}

// maxRequestBody bounds the JSON a client may send.
const maxRequestBody = 32 << 20

// NewServer returns an http.Handler serving s over the OpenAI chat and
// completions APIs.
func NewServer(s Sampler, o ServerOptions) *Server {
	if o.ReasoningField == "" {
		o.ReasoningField = DefaultReasoningField
	}
	return &Server{s: s, o: o}
}

// Requests returns how many chat-completion and completion requests have
// arrived (malformed ones included).
func (sv *Server) Requests() int64 { return sv.requests.Load() }

// ServeHTTP implements http.Handler.
func (sv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if p, ok := strings.CutPrefix(path, "/v1"); ok {
		path = p
	} else if sv.o.V1Only {
		path = "" // the API is only under /v1
	}
	switch path {
	case "/chat/completions", "/completions":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use POST for "+r.URL.Path)
			return
		}
		sv.requests.Add(1)
		if path == "/completions" {
			sv.completions(w, r)
		} else {
			sv.chat(w, r)
		}
	case "/models":
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use GET for "+r.URL.Path)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": sv.models()})
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
		Logprobs            bool            `json:"logprobs"`
		TopLogprobs         *int            `json:"top_logprobs"`
		Stream              bool            `json:"stream"`
		StreamOptions       *streamOptions  `json:"stream_options"`
	}
	streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
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
		Index    *int   `json:"index,omitempty"` // stream deltas only
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
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		Model   string `json:"model"`
		// Fingerprint is system_fingerprint: the server's configuration.
		Fingerprint string       `json:"system_fingerprint,omitempty"`
		Choices     []wireChoice `json:"choices"`
		Usage       *wireUsage   `json:"usage,omitempty"`
	}
	wireChoice struct {
		Index        int            `json:"index"`
		Message      map[string]any `json:"message"` // role, content, tool_calls and the reasoning field
		Logprobs     *wireLogprobs  `json:"logprobs"`
		FinishReason string         `json:"finish_reason"`
	}
	// wireLogprobs are a choice's content tokens with their log
	// probabilities, as OpenAI returns them for logprobs=true.
	wireLogprobs struct {
		Content []wireTokenLogprob `json:"content"`
	}
	wireTokenLogprob struct {
		Token       string           `json:"token"`
		Logprob     float64          `json:"logprob"`
		Bytes       []int            `json:"bytes"`
		TopLogprobs []wireTopLogprob `json:"top_logprobs"`
	}
	wireTopLogprob struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
		Bytes   []int   `json:"bytes"`
	}
	wireUsage struct {
		PromptTokens            int           `json:"prompt_tokens"`
		CompletionTokens        int           `json:"completion_tokens"`
		TotalTokens             int           `json:"total_tokens"`
		CompletionTokensDetails *tokenDetails `json:"completion_tokens_details,omitempty"`
	}
	tokenDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	}
)

// outChoice is a sampled choice as a server renders it: reasoning inline or
// in its field, tool calls with ids, the finish reason the API reports.
type outChoice struct {
	content   *string // nil: no content (tool calls only)
	reasoning string  // for the reasoning field; "" once written inline
	toolCalls []wireToolCall
	finish    string
	logprobs  *wireLogprobs // nil unless asked for and the sampler gave them
}

// render lays out the choices of response id.
func (sv *Server) render(id int64, resp Response) []outChoice {
	out := make([]outChoice, len(resp.Choices))
	for i, c := range resp.Choices {
		oc := outChoice{reasoning: c.Reasoning, logprobs: wireLogprobsOf(c.Logprobs)}
		if c.Content != "" || len(c.ToolCalls) == 0 || (sv.o.ThinkInline && c.Reasoning != "") {
			content := c.Content
			if sv.o.ThinkInline && c.Reasoning != "" {
				content = "<think>\n" + c.Reasoning + "\n</think>\n\n" + content
				oc.reasoning = ""
			}
			oc.content = &content
		}
		for j, tc := range c.ToolCalls {
			wtc := wireToolCall{ID: tc.ID, Type: "function"}
			if wtc.ID == "" {
				wtc.ID = fmt.Sprintf("call_%d_%d_%d", id, i, j)
			}
			wtc.Function.Name, wtc.Function.Arguments = tc.Name, tc.Arguments
			oc.toolCalls = append(oc.toolCalls, wtc)
		}
		oc.finish = "stop"
		if len(c.ToolCalls) > 0 {
			oc.finish = "tool_calls"
		} else if c.FinishReason != "" {
			oc.finish = c.FinishReason
		}
		out[i] = oc
	}
	return out
}

// wireLogprobsOf renders a choice's token log probabilities; nil when it
// has none (the request did not ask, or the sampler gives none).
func wireLogprobsOf(ls []TokenLogprob) *wireLogprobs {
	if len(ls) == 0 {
		return nil
	}
	out := &wireLogprobs{Content: make([]wireTokenLogprob, len(ls))}
	for i, l := range ls {
		t := wireTokenLogprob{Token: l.Token, Logprob: l.Logprob, Bytes: utf8Bytes(l.Token), TopLogprobs: []wireTopLogprob{}}
		for _, a := range l.Top {
			t.TopLogprobs = append(t.TopLogprobs, wireTopLogprob{Token: a.Token, Logprob: a.Logprob, Bytes: utf8Bytes(a.Token)})
		}
		out.Content[i] = t
	}
	return out
}

func utf8Bytes(s string) []int {
	b := make([]int, len(s))
	for i := range len(s) {
		b[i] = int(s[i])
	}
	return b
}

// usage is the wire usage of a response, nil with NoUsage.
func (sv *Server) usage(u Usage) *wireUsage {
	if sv.o.NoUsage {
		return nil
	}
	w := &wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	if u.ReasoningTokens > 0 {
		w.CompletionTokensDetails = &tokenDetails{ReasoningTokens: u.ReasoningTokens}
	}
	return w
}

// readBody reads a request's JSON body and refuses the rejected
// parameters. On failure it has answered and returns false.
func (sv *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body := http.MaxBytesReader(w, r.Body, maxRequestBody)
	b, err := io.ReadAll(body)
	// Only once the body is consumed does net/http watch the connection,
	// so that a client hanging up cancels r.Context().
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading body: "+err.Error())
		return nil, false
	}
	if len(sv.o.RejectParams) > 0 {
		var fields map[string]json.RawMessage
		if json.Unmarshal(b, &fields) == nil {
			for _, p := range sv.o.RejectParams {
				if v, ok := fields[p]; ok && string(bytes.TrimSpace(v)) != "null" {
					writeParamError(w, p)
					return nil, false
				}
			}
		}
	}
	return b, true
}

// sample answers req after the configured latency, with n capped as
// configured. On failure it has answered (or the client is gone) and
// returns false.
func (sv *Server) sample(w http.ResponseWriter, r *http.Request, req Request) (Response, bool) {
	if sv.o.IgnoreN {
		req.N = 1
	} else if sv.o.MaxN > 0 && req.N > sv.o.MaxN {
		req.N = sv.o.MaxN
	}
	ctx := r.Context()
	if sv.o.Latency > 0 {
		if sleepCtx(ctx, sv.o.Latency) != nil {
			return Response{}, false // client gone
		}
	}
	resp, err := sv.s.Sample(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, false
		}
		if IsRequestError(err) { // the backend's refusal of this request, passed on as such
			s, _ := HTTPStatus(err)
			writeError(w, s, "invalid_request_error", err.Error())
			return Response{}, false
		}
		writeError(w, http.StatusInternalServerError, "server_error", "sampler: "+err.Error())
		return Response{}, false
	}
	return resp, true
}

// apiRequest is a request body of one of the APIs served.
type apiRequest interface {
	toRequest() (Request, error)
	model() string
}

// answer decodes a request into wr, samples it and renders the choices of
// the response it numbers with idPrefix. On failure it has answered (or
// the client is gone) and returns false.
func (sv *Server) answer(w http.ResponseWriter, r *http.Request, wr apiRequest, idPrefix string) (chunkMeta, []outChoice, Usage, bool) {
	body, ok := sv.readBody(w, r)
	if !ok {
		return chunkMeta{}, nil, Usage{}, false
	}
	if err := json.Unmarshal(body, wr); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "malformed JSON body: "+err.Error())
		return chunkMeta{}, nil, Usage{}, false
	}
	if len(sv.o.Served) > 0 && !slices.Contains(sv.o.Served, wr.model()) {
		writeNotServed(w, wr.model())
		return chunkMeta{}, nil, Usage{}, false
	}
	req, err := wr.toRequest()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return chunkMeta{}, nil, Usage{}, false
	}
	resp, ok := sv.sample(w, r, req)
	if !ok {
		return chunkMeta{}, nil, Usage{}, false
	}
	id := sv.ids.Add(1)
	meta := chunkMeta{id: fmt.Sprintf("%s%d", idPrefix, id), created: time.Now().Unix(), model: wr.model(), fingerprint: sv.o.Fingerprint}
	return meta, sv.render(id, resp), resp.Usage, true
}

func (wr *wireRequest) model() string { return wr.Model }

// includeUsage reports whether a streamed answer ends with a usage chunk.
func (o *streamOptions) includeUsage() bool { return o != nil && o.IncludeUsage }

func (sv *Server) chat(w http.ResponseWriter, r *http.Request) {
	var wr wireRequest
	meta, choices, usage, ok := sv.answer(w, r, &wr, "chatcmpl-sim-")
	if !ok {
		return
	}
	if wr.Stream {
		sv.streamChat(w, meta, choices, usage, wr.StreamOptions.includeUsage())
		return
	}
	out := wireResponse{ID: meta.id, Object: "chat.completion", Created: meta.created, Model: meta.model, Fingerprint: meta.fingerprint,
		Choices: make([]wireChoice, len(choices)), Usage: sv.usage(usage)}
	for i, c := range choices {
		msg := map[string]any{"role": "assistant", "content": c.content}
		if len(c.toolCalls) > 0 {
			msg["tool_calls"] = c.toolCalls
		}
		if c.reasoning != "" {
			msg[sv.o.ReasoningField] = c.reasoning
		}
		out.Choices[i] = wireChoice{Index: i, Message: msg, Logprobs: c.logprobs, FinishReason: c.finish}
	}
	writeJSON(w, http.StatusOK, out)
}

// maxChoices is the most choices one request may ask for, as OpenAI's
// API allows: a client asking for millions must get a 400, not exhaust
// the server's memory.
const maxChoices = MaxChoicesPerRequest

// choicesWanted reads a request's n: 1 when absent.
func choicesWanted(n *int) (int, error) {
	switch {
	case n == nil:
		return 1, nil
	case *n < 1:
		return 0, fmt.Errorf("n: must be at least 1, got %d", *n)
	case *n > maxChoices:
		return 0, fmt.Errorf("n: must be at most %d, got %d", maxChoices, *n)
	}
	return *n, nil
}

func (wr *wireRequest) toRequest() (Request, error) {
	req := Request{Temperature: wr.Temperature} // nil: the model's default
	if len(wr.Messages) == 0 {
		return req, errors.New("messages: must be a non-empty array")
	}
	n, err := choicesWanted(wr.N)
	if err != nil {
		return req, err
	}
	req.N = n
	if wr.MaxCompletionTokens != nil {
		req.MaxTokens = *wr.MaxCompletionTokens
	} else if wr.MaxTokens != nil {
		req.MaxTokens = *wr.MaxTokens
	}
	if wr.Seed != nil {
		req.Seed = *wr.Seed
	}
	switch {
	case wr.TopLogprobs != nil && (*wr.TopLogprobs < 0 || *wr.TopLogprobs > 20):
		return req, fmt.Errorf("top_logprobs: must be between 0 and 20, got %d", *wr.TopLogprobs)
	case wr.TopLogprobs != nil && *wr.TopLogprobs > 0 && !wr.Logprobs:
		return req, errors.New("top_logprobs: logprobs must be true when top_logprobs is set")
	case wr.Logprobs:
		req.TopLogprobs = 1 // the sampled token itself at least
		if wr.TopLogprobs != nil {
			req.TopLogprobs = max(1, *wr.TopLogprobs)
		}
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

// models is the /v1/models list: the served names, else "sim", each
// with the configured card.
func (sv *Server) models() []any {
	names := sv.o.Served
	if len(names) == 0 {
		names = []string{"sim"}
	}
	out := make([]any, 0, len(names))
	for _, n := range names {
		m := map[string]any{}
		for k, v := range sv.o.Card {
			m[k] = v
		}
		m["id"], m["object"], m["created"], m["owned_by"], m["root"] = n, "model", 0, "reasonbench", n
		out = append(out, m)
	}
	return out
}

// writeNotServed is vLLM's answer to a model name it does not serve.
func writeNotServed(w http.ResponseWriter, model string) {
	writeJSON(w, http.StatusNotFound, map[string]any{
		"error": map[string]any{"message": fmt.Sprintf("The model `%s` does not exist.", model),
			"type": "NotFoundError", "param": "model", "code": http.StatusNotFound},
	})
}

func writeError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
}

// writeParamError refuses a parameter the way OpenAI does for its
// reasoning models: a 400 whose error names it in param.
func writeParamError(w http.ResponseWriter, param string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{
		"error": map[string]any{
			"message": fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", param),
			"type":    "invalid_request_error", "param": param, "code": "unsupported_parameter",
		},
	})
}
