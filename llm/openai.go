package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
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
	BaseURL string // e.g. http://127.0.0.1:8000/v1; "" → OPENAI_BASE_URL env, else https://api.openai.com/v1
	APIKey  string // "" → OPENAI_API_KEY env; never logged, never included in any error text or String()
	// NoKey sends no Authorization header at all (APIKey and the
	// environment ignored): a judge or verifier on another server than
	// the run's, given no key of its own, must not get the run's.
	NoKey      bool
	Model      string        // sent as-is
	Timeout    time.Duration // per HTTP attempt; 0 → 5m
	HTTPClient *http.Client  // optional; default: cloned DefaultTransport with MaxIdleConnsPerHost=64
	// API is APIChat (also "") or APICompletions (/v1/completions: one
	// user turn sent as the prompt, for base models).
	API string
	// MaxTokensField is how a request's MaxTokens goes out on the chat API:
	// MaxTokensAuto (also "") decides by the model's name
	// (UsesMaxCompletionTokens), or FieldMaxTokens / FieldMaxCompletionTokens.
	MaxTokensField string
	// MaxN caps the choices asked for in one request (0: MaxChoicesPerRequest);
	// the rest are topped up as for a server that returns fewer. 1 suits
	// servers that refuse n > 1 (llama.cpp).
	MaxN int
	// MaxResponseBytes caps a response body (0: DefaultMaxResponseBytes):
	// reading stops there and the call fails with ResponseTooLargeError,
	// so that a server answering without end cannot take bench's memory.
	MaxResponseBytes int64
}

// DefaultMaxResponseBytes is the response cap when none is configured:
// above what answers need (128 choices of 32,000 tokens each are about 16
// MB of text), far below what would exhaust a machine (a body is copied
// several times on its way to the store).
const DefaultMaxResponseBytes = 64 << 20

// ResponseTooLargeError is the error of a call whose response body was over
// the cap (OpenAIConfig.MaxResponseBytes); Declared is the length the
// server announced when it did. It is not retried.
type ResponseTooLargeError struct{ Limit, Declared int64 }

func (e *ResponseTooLargeError) Error() string {
	if e.Declared > 0 {
		return fmt.Sprintf("the server announced a response of %d bytes, over the %s limit on a response", e.Declared, byteSize(e.Limit))
	}
	return fmt.Sprintf("the response is over the %s limit on a response (reading stopped there)", byteSize(e.Limit))
}

// byteSize writes n in MiB when it is a whole number of them.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

// MaxChoicesPerRequest is the most choices OpenAI's API takes in one
// request (n ≤ 128), and what bench serve-sim accepts: more are asked for
// in further requests.
const MaxChoicesPerRequest = 128

// The APIs the backend speaks.
const (
	APIChat        = "chat"        // /chat/completions
	APICompletions = "completions" // /completions
)

// APIs lists them for flags.
var APIs = []string{APIChat, APICompletions}

// How MaxTokens is sent on the chat API.
const (
	MaxTokensAuto            = "auto"
	FieldMaxTokens           = "max_tokens"
	FieldMaxCompletionTokens = "max_completion_tokens"
)

// MaxTokensFields lists them for flags.
var MaxTokensFields = []string{MaxTokensAuto, FieldMaxTokens, FieldMaxCompletionTokens}

// UsesMaxCompletionTokens reports whether a model is one of OpenAI's
// reasoning models (o1, o3, o4-mini, gpt-5 and their snapshots, with or
// without an "openai/" prefix), which refuse max_tokens and take
// max_completion_tokens. Other servers (vLLM, Ollama, llama.cpp) are sent
// max_tokens, which all of them read.
func UsesMaxCompletionTokens(model string) bool {
	name := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if name == p || strings.HasPrefix(name, p+"-") || strings.HasPrefix(name, p+".") {
			return true
		}
	}
	return false
}

// OpenAI is a Sampler backed by an OpenAI-compatible /chat/completions
// (or /completions) endpoint. The SDK's own retries are disabled; wrap it with Retry.
type OpenAI struct {
	client  openai.Client
	baseURL string // redacted (no userinfo), for messages
	apiKey  string // only kept to scrub it out of error text
	model   string
	timeout time.Duration
	api     string
	// maxCompletionTokens sends MaxTokens as max_completion_tokens.
	maxCompletionTokens bool
	maxN                int
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
	api := cfg.API
	switch api {
	case "":
		api = APIChat
	case APIChat, APICompletions:
	default:
		return nil, fmt.Errorf("openai backend: unknown API %q: want one of %s", api, strings.Join(APIs, ", "))
	}
	var mct bool
	switch cfg.MaxTokensField {
	case "", MaxTokensAuto:
		mct = UsesMaxCompletionTokens(cfg.Model)
	case FieldMaxTokens:
	case FieldMaxCompletionTokens:
		mct = true
	default:
		return nil, fmt.Errorf("openai backend: unknown max tokens field %q: want one of %s", cfg.MaxTokensField, strings.Join(MaxTokensFields, ", "))
	}
	key := cfg.APIKey
	if key == "" && !cfg.NoKey {
		key = os.Getenv("OPENAI_API_KEY")
	}
	if cfg.NoKey {
		key = ""
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
	limit := cfg.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0), // retrying is the Retry middleware's job
		option.WithHTTPClient(hc),
		option.WithMiddleware(keepErrorBody),
		// Last, so innermost: it caps the body every other reader sees.
		option.WithMiddleware(capBody(limit)),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if cfg.NoKey {
		// The SDK adds $OPENAI_API_KEY by itself; take it off the wire.
		opts = append(opts, option.WithMiddleware(dropAuthorization))
	}
	return &OpenAI{
		client:  openai.NewClient(opts...),
		baseURL: strings.TrimRight(u.Redacted(), "/"),
		apiKey:  key,
		model:   cfg.Model,
		timeout: timeout,
		api:     api,

		maxCompletionTokens: mct,
		maxN:                cmp.Or(max(cfg.MaxN, 0), MaxChoicesPerRequest),
	}, nil
}

// String describes the backend without its API key.
func (o *OpenAI) String() string {
	return fmt.Sprintf("openai(model=%q, base_url=%s, api=%s)", o.model, o.baseURL, o.api)
}

// BaseURL returns the endpoint's base URL (userinfo redacted).
func (o *OpenAI) BaseURL() string { return o.baseURL }

// Sample asks for req.Samples() choices in one request. If the server
// returns fewer (m), the rest is requested concurrently in chunks of at most
// m choices, the chunk starting at choice i being sent with seed req.Seed+i.
// Choices are reindexed 0..N-1; usage is summed, and Usage.Requests is the
// number of HTTP requests made.
func (o *OpenAI) Sample(ctx context.Context, req Request) (Response, error) {
	send, err := o.sender(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s at %s: %w", o.what(), o.baseURL, err)
	}
	n := req.Samples()
	out := make([]Choice, n)
	run := &sampleRun{o: o, send: send, sem: make(chan struct{}, maxInflightPerSample)}
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

// what names the endpoint's API in messages.
func (o *OpenAI) what() string {
	if o.api == APICompletions {
		return "completion"
	}
	return "chat completion"
}

// reply is one HTTP response's choices, usage and model name.
type reply struct {
	choices []Choice
	usage   Usage
	model   string
}

// sendFunc makes one HTTP request for k choices with the given seed.
type sendFunc func(ctx context.Context, seed int64, k int, into **http.Response) (reply, error)

// sender maps everything in req except n and seed to the API's parameters
// and returns the function that sends them.
func (o *OpenAI) sender(req Request) (sendFunc, error) {
	if req.Reward != nil {
		return nil, fmt.Errorf("a %s reward request needs a reward model's endpoint (verify.Pooling), not a completion API", req.Reward.Kind)
	}
	if o.api == APICompletions {
		p, err := o.completionParams(req)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, seed int64, k int, into **http.Response) (reply, error) {
			p := p // shallow copy; shared slices are only read
			p.Seed = openai.Int(seed)
			if k > 1 {
				p.N = openai.Int(int64(k))
			}
			resp, err := o.client.Completions.New(ctx, p, option.WithResponseInto(into))
			if err != nil {
				return reply{}, err
			}
			r := reply{usage: usageOf(resp.Usage), model: resp.Model}
			for _, ch := range resp.Choices {
				r.choices = append(r.choices, Choice{Index: int(ch.Index), Content: ch.Text,
					Reasoning: reasoningField(ch.JSON.ExtraFields), FinishReason: string(ch.FinishReason)})
			}
			return r, nil
		}, nil
	}
	p, err := o.params(req)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, seed int64, k int, into **http.Response) (reply, error) {
		p := p
		p.Seed = openai.Int(seed)
		if k > 1 {
			p.N = openai.Int(int64(k))
		}
		resp, err := o.client.Chat.Completions.New(ctx, p, option.WithResponseInto(into))
		if err != nil {
			return reply{}, err
		}
		r := reply{usage: usageOf(resp.Usage), model: resp.Model}
		for _, ch := range resp.Choices {
			r.choices = append(r.choices, convertChoice(ch))
		}
		return r, nil
	}, nil
}

// usageOf reads a response's usage; a server that sends none gives zeros.
func usageOf(u openai.CompletionUsage) Usage {
	return Usage{PromptTokens: int(u.PromptTokens), CompletionTokens: int(u.CompletionTokens),
		ReasoningTokens: int(u.CompletionTokensDetails.ReasoningTokens)}
}

// sampleRun is the state of one Sample call: its requests may fan out.
type sampleRun struct {
	o      *OpenAI
	send   sendFunc
	sem    chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	usage Usage
	model string
	err   error
}

// fill fills out with choices whose first one uses seed: one request for
// len(out) choices (at most maxN), then concurrent top-ups for the rest.
func (r *sampleRun) fill(ctx context.Context, seed int64, out []Choice) {
	ask := len(out)
	if r.o.maxN > 0 {
		ask = min(ask, r.o.maxN)
	}
	got, err := r.request(ctx, seed, ask)
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

	actx, cancel := context.WithTimeout(ctx, r.o.timeout)
	defer cancel()
	var httpRes *http.Response
	resp, err := r.send(actx, seed, k, &httpRes)
	r.mu.Lock()
	r.usage.Requests++
	r.mu.Unlock()
	if err != nil {
		return nil, r.o.wrapErr(ctx, actx, err, httpRes)
	}
	if len(resp.choices) == 0 {
		return nil, fmt.Errorf("%s at %s: server returned no choices (asked for %d)", r.o.what(), r.o.baseURL, k)
	}
	chs := resp.choices
	sort.SliceStable(chs, func(i, j int) bool { return chs[i].Index < chs[j].Index })
	if len(chs) > k {
		chs = chs[:k]
	}
	r.mu.Lock()
	r.usage = r.usage.Add(resp.usage)
	if r.model == "" {
		r.model = resp.model
	}
	r.mu.Unlock()
	return chs, nil
}

func convertChoice(ch openai.ChatCompletionChoice) Choice {
	c := Choice{
		Index:        int(ch.Index),
		Content:      ch.Message.Content,
		FinishReason: ch.FinishReason,
		Reasoning:    reasoningField(ch.Message.JSON.ExtraFields),
	}
	for _, t := range ch.Logprobs.Content {
		tl := TokenLogprob{Token: t.Token, Logprob: t.Logprob}
		for _, a := range t.TopLogprobs {
			tl.Top = append(tl.Top, TopLogprob{Token: a.Token, Logprob: a.Logprob})
		}
		c.Logprobs = append(c.Logprobs, tl)
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

// reasoningField reads the reasoning a server returned beside the content.
// vLLM (since late 2025) and OpenRouter say "reasoning"; DeepSeek,
// llama.cpp and older vLLM say "reasoning_content". Extras are never
// Valid(), so test Raw().
func reasoningField(extra map[string]respjson.Field) string {
	for _, k := range []string{"reasoning", "reasoning_content"} {
		raw := extra[k].Raw()
		if raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// params maps everything in req except n and seed to the chat API.
func (o *OpenAI) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: o.model}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		if o.maxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if len(req.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if req.TopLogprobs > 0 {
		p.Logprobs = openai.Bool(true)
		p.TopLogprobs = openai.Int(int64(req.TopLogprobs))
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
	return p, setExtra(&p, req.Extra)
}

// ErrNeedsChat is the error of a request the completions API cannot carry:
// more than one message, a role other than user, or tools.
var ErrNeedsChat = errors.New("the completions API takes one user turn as its prompt: this request needs the chat API")

// completionParams maps a single-turn request to the completions API: the
// prompt is the user turn's text verbatim. A step continuation (a user turn
// and a partial assistant turn with continue_final_message, as bon, beam
// and dvts send) is one prompt too: the user turn without its trailing
// whitespace, a newline, and the partial solution verbatim; the chat
// template's two fields are not sent, there being no chat template.
func (o *OpenAI) completionParams(req Request) (openai.CompletionNewParams, error) {
	p := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(o.model)}
	if prompt, extra, ok := continuationPrompt(req); ok {
		req.Messages, req.Extra = []Message{{Role: "user", Content: prompt}}, extra
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || len(req.Tools) > 0 {
		return p, fmt.Errorf("%d messages, %d tools: %w", len(req.Messages), len(req.Tools), ErrNeedsChat)
	}
	p.Prompt = openai.CompletionNewParamsPromptUnion{OfString: openai.String(req.Messages[0].Content)}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if len(req.Stop) > 0 {
		p.Stop = openai.CompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	return p, setExtra(&p, req.Extra)
}

// continuationPrompt flattens a step continuation for the completions API
// (see completionParams); ok is false for any other request.
func continuationPrompt(req Request) (prompt string, extra map[string]json.RawMessage, ok bool) {
	if len(req.Messages) != 2 || req.Messages[0].Role != "user" || req.Messages[1].Role != "assistant" ||
		len(req.Tools) > 0 || len(req.Messages[1].ToolCalls) > 0 || string(req.Extra["continue_final_message"]) != "true" {
		return "", nil, false
	}
	extra = make(map[string]json.RawMessage, len(req.Extra))
	for k, v := range req.Extra {
		if k != "continue_final_message" && k != "add_generation_prompt" {
			extra[k] = v
		}
	}
	return strings.TrimRight(req.Messages[0].Content, " \t\n") + "\n" + req.Messages[1].Content, extra, true
}

// setExtra checks the verbatim fields and hands them to the SDK's
// parameters p, which write a json.RawMessage as it is.
func setExtra(p interface{ SetExtraFields(map[string]any) }, extra map[string]json.RawMessage) error {
	if len(extra) == 0 {
		return nil
	}
	out := make(map[string]any, len(extra))
	for k, v := range extra {
		if !json.Valid(v) {
			return fmt.Errorf("parameter %s: not a JSON value", k)
		}
		out[k] = v
	}
	p.SetExtraFields(out)
	return nil
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
		p := openai.ToolMessage(m.Content, m.ToolCallID)
		if m.Name != "" && p.OfTool != nil {
			// Not in OpenAI's schema, but sent by agents that name the
			// tool in its result's turn (τ-bench's, through litellm), and
			// read by servers that template it.
			p.OfTool.SetExtraFields(map[string]any{"name": m.Name})
		}
		return p, nil
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
	var tooLarge *ResponseTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		// The server's failure whatever its status, and no retry: the same
		// server would send as much again.
		err = tooLarge
		if res != nil && res.StatusCode >= 400 {
			err = fmt.Errorf("HTTP %d: %w", res.StatusCode, tooLarge)
		}
	case errors.As(err, &ae):
		if msg := strings.TrimSpace(ae.Message); msg != "" {
			err = fmt.Errorf("%w: %s", err, truncate(msg, 500))
		} else if body := errorBody(res); body != "" {
			err = fmt.Errorf("%w: %s", err, body)
		}
		if name := rejectedParam(ae); name != "" {
			msg := oneLine(truncate(strings.TrimSpace(ae.Message), 300))
			if o.apiKey != "" {
				msg = strings.ReplaceAll(msg, o.apiKey, "[REDACTED]")
			}
			err = &ParamError{Param: name, Message: msg, Err: err}
		}
	case res != nil && res.StatusCode >= 400:
		// The SDK could not parse the error body (e.g. an HTML 502 page from
		// a proxy); report the status as an *openai.Error all the same.
		// Its body's text is shown whatever its shape ({"error": "...",
		// "message": "..."}, plain text): it is the server's explanation.
		ae := &openai.Error{StatusCode: res.StatusCode, Request: res.Request, Response: res}
		if body := errorBody(res); body != "" {
			err = fmt.Errorf("%w: %s", ae, body)
		} else {
			err = fmt.Errorf("%w (%v)", ae, err)
		}
	case parent.Err() == nil && errors.Is(attempt.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("attempt timed out after %s: %w", o.timeout, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		err = fmt.Errorf("connection refused: is the server running? check --base-url: %w", err)
	case isDNSError(err):
		err = fmt.Errorf("cannot resolve host: check --base-url: %w", err)
	}
	err = fmt.Errorf("%s at %s: %w", o.what(), o.baseURL, err)
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

// dropAuthorization sends a request without credentials.
func dropAuthorization(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	req.Header.Del("Authorization")
	req.Header.Del("Api-Key")
	return next(req)
}

// capBody fails a response whose body is over limit bytes: at once when
// the server announces as much (Content-Length), else when reading passes
// the limit (the SDK reads a body whole, error bodies too).
func capBody(limit int64) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res == nil || res.Body == nil {
			return res, err
		}
		if res.ContentLength > limit {
			res.Body.Close()
			return nil, &ResponseTooLargeError{Limit: limit, Declared: res.ContentLength}
		}
		res.Body = &cappedBody{rc: res.Body, left: limit, limit: limit}
		return res, nil
	}
}

// cappedBody reads at most limit bytes of a body, then fails with
// ResponseTooLargeError if there is more.
type cappedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// A byte more tells a body of exactly limit bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &ResponseTooLargeError{Limit: b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// errorBodyHeader carries the start of an error response's body from
// keepErrorBody to wrapErr (the SDK consumes the body itself).
const errorBodyHeader = "X-Reasonbench-Error-Body"

// keepErrorBody keeps the first 2 KB of an error response's body in a
// header of the response, leaving the body readable for the SDK.
func keepErrorBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 400 || res.Body == nil {
		return res, err
	}
	head := make([]byte, 2048)
	n, _ := io.ReadFull(res.Body, head)
	head = head[:n]
	res.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), res.Body), res.Body}
	res.Header.Set(errorBodyHeader, oneLine(strings.ToValidUTF8(string(head), "?")))
	return res, nil
}

// errorBody is the text of an error response's body, on one line: a JSON
// body's string fields (message, error, detail, ...) in order, or the text.
func errorBody(res *http.Response) string {
	if res == nil {
		return ""
	}
	text := res.Header.Get(errorBodyHeader)
	if text == "" {
		return ""
	}
	var fields map[string]any
	if json.Unmarshal([]byte(text), &fields) == nil {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			switch v := fields[k].(type) {
			case string:
				parts = append(parts, k+": "+v)
			case map[string]any:
				if m, ok := v["message"].(string); ok {
					parts = append(parts, k+": "+m)
				}
			}
		}
		if len(parts) > 0 {
			text = strings.Join(parts, "; ")
		}
	}
	return truncate(text, 500)
}
