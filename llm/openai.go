package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// DefaultOpenAIBaseURL is used when neither OpenAIConfig.BaseURL nor
// OPENAI_BASE_URL is set.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// DefaultOpenAITimeout is the per-attempt timeout when OpenAIConfig.Timeout is 0.
const DefaultOpenAITimeout = 5 * time.Minute

// maxInflightPerSample bounds the concurrent HTTP requests one Sample call
// makes while topping up choices from a server that caps or ignores n.
const maxInflightPerSample = 64

// OpenAIConfig configures an OpenAI-compatible chat-completions backend
// (OpenAI, vLLM, llama.cpp, Ollama, OpenRouter, the built-in simulator...).
type OpenAIConfig struct {
	BaseURL    string        // e.g. http://127.0.0.1:8000/v1; "" → OPENAI_BASE_URL env, else https://api.openai.com/v1
	APIKey     string        // "" → OPENAI_API_KEY env; never logged, never included in any error text or String()
	Model      string        // sent as-is
	Timeout    time.Duration // per HTTP attempt; 0 → 5m
	HTTPClient *http.Client  // optional; default: cloned DefaultTransport with MaxIdleConnsPerHost=64
}

// OpenAI is a Sampler backed by an OpenAI-compatible /chat/completions
// endpoint. The SDK's own retries are disabled; wrap it with Retry.
type OpenAI struct {
	client  openai.Client
	baseURL string // redacted (no userinfo), for messages
	apiKey  string // only kept to scrub it out of error text
	model   string
	timeout time.Duration
}

// NewOpenAI builds the backend. It makes no network request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai backend: invalid base URL %q: want http(s)://host[:port]/path, e.g. http://127.0.0.1:8000/v1", redactURL(base))
	}
	key := cfg.APIKey
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultOpenAITimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		hc = &http.Client{Transport: tr}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0), // retrying is the Retry middleware's job
		option.WithHTTPClient(hc),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &OpenAI{
		client:  openai.NewClient(opts...),
		baseURL: strings.TrimRight(u.Redacted(), "/"),
		apiKey:  key,
		model:   cfg.Model,
		timeout: timeout,
	}, nil
}

// String describes the backend without its API key.
func (o *OpenAI) String() string {
	return fmt.Sprintf("openai(model=%q, base_url=%s)", o.model, o.baseURL)
}

// BaseURL returns the endpoint's base URL (userinfo redacted).
func (o *OpenAI) BaseURL() string { return o.baseURL }

// Sample asks for req.Samples() choices in one request. If the server
// returns fewer (m), the rest is requested concurrently in chunks of at most
// m choices, the chunk starting at choice i being sent with seed req.Seed+i.
// Choices are reindexed 0..N-1; usage is summed, and Usage.Requests is the
// number of HTTP requests made.
func (o *OpenAI) Sample(ctx context.Context, req Request) (Response, error) {
	params, err := o.params(req)
	if err != nil {
		return Response{}, fmt.Errorf("chat completion at %s: %w", o.baseURL, err)
	}
	n := req.Samples()
	out := make([]Choice, n)
	run := &sampleRun{o: o, params: params, sem: make(chan struct{}, maxInflightPerSample)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run.cancel = cancel
	run.fill(ctx, req.Seed, out)
	run.wg.Wait()
	if run.err != nil {
		return Response{}, run.err
	}
	for i := range out {
		out[i].Index = i
	}
	return Response{Choices: out, Usage: run.usage, Model: run.model}, nil
}

// sampleRun is the state of one Sample call: its requests may fan out.
type sampleRun struct {
	o      *OpenAI
	params openai.ChatCompletionNewParams
	sem    chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	usage Usage
	model string
	err   error
}

// fill fills out with choices whose first one uses seed: one request for
// len(out) choices, then concurrent top-ups if the server answered fewer.
func (r *sampleRun) fill(ctx context.Context, seed int64, out []Choice) {
	got, err := r.request(ctx, seed, len(out))
	if err != nil {
		r.fail(err)
		return
	}
	m := copy(out, got)
	for off := m; off < len(out); off += m {
		part := out[off:min(off+m, len(out))]
		r.wg.Go(func() { r.fill(ctx, seed+int64(off), part) })
	}
}

func (r *sampleRun) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
		r.cancel()
	}
}

// request makes one HTTP request for k choices (k ≥ 1) and returns at least
// one and at most k choices in order.
func (r *sampleRun) request(ctx context.Context, seed int64, k int) ([]Choice, error) {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, r.o.wrapErr(ctx, ctx, ctx.Err(), nil)
	}
	defer func() { <-r.sem }()

	p := r.params // shallow copy; shared slices are only read
	p.Seed = openai.Int(seed)
	if k > 1 {
		p.N = openai.Int(int64(k))
	}
	actx, cancel := context.WithTimeout(ctx, r.o.timeout)
	defer cancel()
	var httpRes *http.Response
	resp, err := r.o.client.Chat.Completions.New(actx, p, option.WithResponseInto(&httpRes))
	r.mu.Lock()
	r.usage.Requests++
	r.mu.Unlock()
	if err != nil {
		return nil, r.o.wrapErr(ctx, actx, err, httpRes)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("chat completion at %s: server returned no choices (asked for %d)", r.o.baseURL, k)
	}
	chs := resp.Choices
	sort.SliceStable(chs, func(i, j int) bool { return chs[i].Index < chs[j].Index })
	if len(chs) > k {
		chs = chs[:k]
	}
	got := make([]Choice, len(chs))
	for i, ch := range chs {
		got[i] = convertChoice(ch)
	}
	r.mu.Lock()
	r.usage.PromptTokens += int(resp.Usage.PromptTokens)
	r.usage.CompletionTokens += int(resp.Usage.CompletionTokens)
	if r.model == "" {
		r.model = resp.Model
	}
	r.mu.Unlock()
	return got, nil
}

func convertChoice(ch openai.ChatCompletionChoice) Choice {
	c := Choice{
		Index:        int(ch.Index),
		Content:      ch.Message.Content,
		FinishReason: ch.FinishReason,
	}
	// vLLM (since late 2025) and OpenRouter say "reasoning"; DeepSeek,
	// llama.cpp and older vLLM say "reasoning_content". Extras are never
	// Valid(), so test Raw().
	for _, k := range []string{"reasoning", "reasoning_content"} {
		raw := ch.Message.JSON.ExtraFields[k].Raw()
		if raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			c.Reasoning = s
			break
		}
	}
	for _, tc := range ch.Message.ToolCalls {
		call := ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		if tc.Type == "custom" {
			call.Name, call.Arguments = tc.Custom.Name, tc.Custom.Input
		}
		c.ToolCalls = append(c.ToolCalls, call)
	}
	return c
}

// params maps everything in req except n and seed.
func (o *OpenAI) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:       o.model,
		Temperature: openai.Float(req.Temperature),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if len(req.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	for i, m := range req.Messages {
		mp, err := messageParam(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, t := range req.Tools {
		fd := openai.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			if !json.Valid(t.Parameters) {
				return p, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
			}
			// Sent verbatim (key order kept: chat templates render it).
			fd.SetExtraFields(map[string]any{"parameters": t.Parameters})
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	return p, nil
}

func messageParam(m Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case "system":
		return openai.SystemMessage(m.Content), nil
	case "developer":
		return openai.DeveloperMessage(m.Content), nil
	case "user":
		return openai.UserMessage(m.Content), nil
	case "tool":
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	case "assistant":
		var a openai.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = openai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
				},
			})
		}
		if m.Reasoning != "" {
			a.SetExtraFields(map[string]any{"reasoning_content": m.Reasoning})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// wrapErr turns an SDK error into our error: base URL named, the
// underlying error kept for errors.Is/As, the API key scrubbed from the text.
func (o *OpenAI) wrapErr(parent, attempt context.Context, err error, res *http.Response) error {
	var ae *openai.Error
	switch {
	case errors.As(err, &ae):
		if msg := strings.TrimSpace(ae.Message); msg != "" {
			err = fmt.Errorf("%w: %s", err, truncate(msg, 500))
		}
	case res != nil && res.StatusCode >= 400:
		// The SDK could not parse the error body (e.g. an HTML 502 page from
		// a proxy); report the status as an *openai.Error all the same.
		err = fmt.Errorf("%w (%v)", &openai.Error{StatusCode: res.StatusCode, Request: res.Request, Response: res}, err)
	case parent.Err() == nil && errors.Is(attempt.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("attempt timed out after %s: %w", o.timeout, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		err = fmt.Errorf("connection refused: is the server running? check --base-url: %w", err)
	case isDNSError(err):
		err = fmt.Errorf("cannot resolve host: check --base-url: %w", err)
	}
	err = fmt.Errorf("chat completion at %s: %w", o.baseURL, err)
	if o.apiKey != "" {
		err = &redactedError{err: err, secret: o.apiKey}
	}
	return err
}

func isDNSError(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "<unparsable URL>"
}

// redactedError hides a secret from an error's text; Unwrap keeps the chain.
type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[REDACTED]")
}

func (e *redactedError) Unwrap() error { return e.err }
