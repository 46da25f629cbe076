// Package llm defines the one sampler every strategy talks to, its
// middlewares, and the OpenAI-compatible backend.
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Message is one chat turn.
type Message struct {
	Role       string     `json:"role"` // system, user, assistant, tool
	Content    string     `json:"content"`
	Reasoning  string     `json:"reasoning,omitempty"`    // reasoning content some servers return; kept in history
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant turns that call tools
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool turns: which call this answers
	Name       string     `json:"name,omitempty"`         // tool turns: the tool's name
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON text as the model wrote it; may be malformed
}

// ToolSpec describes a function the model may call.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema of the arguments object
}

// Request is what a strategy asks of the sampler.
type Request struct {
	Messages []Message `json:"messages"`
	N        int       `json:"n"` // samples wanted (0 means 1)
	// Temperature is the sampling temperature; nil leaves it unsent, so
	// the model samples at its own default (reasoning models refuse any
	// other). Recorded as null.
	Temperature *float64   `json:"temperature"`
	MaxTokens   int        `json:"max_tokens,omitempty"`
	Stop        []string   `json:"stop,omitempty"`
	Seed        int64      `json:"seed"`
	Tools       []ToolSpec `json:"tools,omitempty"`
	// Extra are request body fields sent verbatim (--param NAME=VALUE:
	// reasoning_effort, top_p, chat_template_kwargs, ...), each a JSON value.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
	// Purpose says what the call is for ("cot", "propose", "value", ...).
	// It is recorded with the call and never sent to a server.
	Purpose string `json:"purpose"`
	// Call is the call's identity: where it sits in the strategy's own
	// deterministic program ("t2/s1/act", "s3/propose/b4"), never in the
	// order calls happen to be made. Two calls of an item with different
	// identities are independent draws even when their text is identical;
	// the same identity in a rerun or resume is the same draw. The seed
	// sent to the server is derived from it (Identify); it is never sent.
	Call string `json:"call,omitempty"`
	// Share, when set, names sharing the method declares (ToT's value
	// cache): the call is then one draw per identity across the whole run,
	// whichever item asks first, instead of one per item.
	Share string `json:"share,omitempty"`
	// TopLogprobs, when positive, asks for each content token's log
	// probability and this many alternatives (logprobs=true,
	// top_logprobs=N): a generative verifier reads P("Yes") from them.
	TopLogprobs int `json:"top_logprobs,omitempty"`
	// Reward, when set, asks a reward model to score the conversation
	// rather than continue it (package verify): only a reward backend (a
	// pooling endpoint, the simulated verifier) answers it, with the
	// scores as a JSON array in the first choice's content.
	Reward *Reward `json:"reward,omitempty"`
}

// Reward says how a reward model is to score a request: Kind "prm" wants a
// score per step, "orm" one for the whole answer; the steps are the last
// assistant turn's text split at Sep (each step followed by it).
type Reward struct {
	Kind string `json:"kind"`
	Sep  string `json:"sep,omitempty"`
}

// DefaultTemperature is the temperature a model samples at when none is
// sent: OpenAI's documented default, which the simulator follows too.
const DefaultTemperature = 1.0

// Temp returns a temperature to send: Request{Temperature: llm.Temp(0.7)}.
func Temp(t float64) *float64 { return &t }

// TemperatureOr returns the request's temperature, or def when it is unsent.
func (r Request) TemperatureOr(def float64) float64 {
	if r.Temperature == nil {
		return def
	}
	return *r.Temperature
}

// Samples returns how many choices the request wants.
func (r Request) Samples() int {
	if r.N < 1 {
		return 1
	}
	return r.N
}

// Choice is one sampled completion.
type Choice struct {
	Index        int        `json:"index"`
	Content      string     `json:"content"`
	Reasoning    string     `json:"reasoning,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	// Logprobs are the content tokens' log probabilities, when the request
	// asked for them (TopLogprobs) and the server returned them.
	Logprobs []TokenLogprob `json:"logprobs,omitempty"`
}

// TokenLogprob is one generated token's log probability and the most
// likely alternatives at its position.
type TokenLogprob struct {
	Token   string       `json:"token"`
	Logprob float64      `json:"logprob"`
	Top     []TopLogprob `json:"top,omitempty"`
}

// TopLogprob is one alternative token at a position.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// Message returns the choice as an assistant turn to append to a history.
func (c Choice) Message() Message {
	return Message{Role: "assistant", Content: c.Content, Reasoning: c.Reasoning, ToolCalls: c.ToolCalls}
}

// Usage counts tokens and requests behind a response.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"` // reasoning tokens included, as OpenAI counts them
	// ReasoningTokens is the part of CompletionTokens the model spent
	// thinking (usage.completion_tokens_details.reasoning_tokens).
	ReasoningTokens int     `json:"reasoning_tokens,omitempty"`
	Requests        int     `json:"requests"` // HTTP requests (or simulated ones) made
	Cost            float64 `json:"cost,omitempty"`
	// Estimated marks token counts made here (tokens.EstimateMissing)
	// because the server reported no usage.
	Estimated bool `json:"estimated,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
		Requests:         u.Requests + v.Requests,
		Cost:             u.Cost + v.Cost,
		Estimated:        u.Estimated || v.Estimated,
	}
}

// Response holds the choices of one request.
type Response struct {
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
	Model   string   `json:"model,omitempty"`
	// CacheHit marks a response replayed from the cache. Latency, when set,
	// is the model's own time (for a cache hit, the original call's).
	CacheHit bool          `json:"-"`
	Latency  time.Duration `json:"-"`
}

// Texts returns the content of every choice, in order.
func (r Response) Texts() []string {
	out := make([]string, len(r.Choices))
	for i, c := range r.Choices {
		out[i] = c.Content
	}
	return out
}

// Sampler produces completions. Every backend and middleware is one.
type Sampler interface {
	Sample(ctx context.Context, req Request) (Response, error)
}

// SamplerFunc adapts a function to a Sampler.
type SamplerFunc func(ctx context.Context, req Request) (Response, error)

// Sample calls f.
func (f SamplerFunc) Sample(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// Middleware wraps a Sampler, the way net/http wraps a Handler.
type Middleware func(Sampler) Sampler

// Chain wraps s in the middlewares; the first one listed is outermost.
func Chain(s Sampler, mws ...Middleware) Sampler {
	for i := len(mws) - 1; i >= 0; i-- {
		s = mws[i](s)
	}
	return s
}
