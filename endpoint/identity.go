// Package endpoint is the recording model endpoint that programs written
// outside this repository (a Python strategy, an agent framework) talk to:
// an OpenAI-compatible server (llm.Server) on 127.0.0.1 behind a per-run
// token, over the sampler stack of an item (or of a proxy run), so that
// every call they make is gated, identified, recorded, cached and costed
// like a call of a built-in strategy.
package endpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
)

// CallHeader names a call explicitly; without it a call's identity comes
// from its content.
const CallHeader = "X-Bench-Call"

// API kinds a request can arrive on: part of a content identity, so that a
// completion and a one-message chat with the same text are two calls.
const (
	APIChat        = "chat"
	APICompletions = "completions"
)

type ctxKey int

const (
	keyName ctxKey = iota
	keyAPI
)

// withCall carries what the HTTP layer knows of a call (its explicit name
// and the API it came on) to the identity middleware, which sees only the
// llm.Request and the request's context.
func withCall(ctx context.Context, name, api string) context.Context {
	return context.WithValue(context.WithValue(ctx, keyName, name), keyAPI, api)
}

// Identity gives each call of one item (or one proxy item) its identity,
// which llm.Identify turns into the call's seed: the X-Bench-Call header's
// name if sent (a repeat of a name within the item becomes name#2, name#3,
// …), else "p/" + 12 hex digits of the SHA-256 of the canonical request
// (ContentKey) + "#k", where k counts identical requests of the item in
// the order they arrive. So a program's calls draw the same in a rerun or
// a resume whatever the timing, as long as the program sends the same
// requests; two identical requests are two draws. One Identity is made per
// item; it also sets the recorded purpose.
func Identity(purpose string) llm.Middleware {
	var (
		mu     sync.Mutex
		seen   = map[string]int{}
		issued = map[string]bool{}
	)
	// next is base#k for the k-th use of base, or base itself for the
	// first use of an explicit name (bare); a name a program sent
	// literally ("a#2") is never issued twice.
	next := func(base string, bare bool) string {
		mu.Lock()
		defer mu.Unlock()
		for {
			seen[base]++
			id := base + "#" + strconv.Itoa(seen[base])
			if bare && seen[base] == 1 {
				id = base
			}
			if !issued[id] {
				issued[id] = true
				return id
			}
		}
	}
	return func(s llm.Sampler) llm.Sampler {
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			name, _ := ctx.Value(keyName).(string)
			api, _ := ctx.Value(keyAPI).(string)
			if name != "" {
				// The first use of a name is the name itself, so that a
				// program naming its calls sees its own names recorded.
				req.Call = next(name, true)
			} else {
				req.Call = next("p/"+ContentKey(api, req), false)
			}
			req.Purpose, req.Share = purpose, ""
			return s.Sample(ctx, req)
		})
	}
}

// canonical is what a content identity hashes: what the program asked
// for, not how it was spelled on the wire (field order, whitespace, a
// prompt as a string or a one-element array) and not the seed, which the
// identity replaces.
type canonical struct {
	API         string         `json:"api"`
	Messages    []llm.Message  `json:"messages"`
	Tools       []llm.ToolSpec `json:"tools,omitempty"`
	N           int            `json:"n"`
	Temperature *float64       `json:"temperature"`
	MaxTokens   int            `json:"max_tokens,omitempty"`
	Stop        []string       `json:"stop,omitempty"`
}

// ContentKey is the first 12 hex digits of the SHA-256 of a request's
// canonical form (messages, tools, n, temperature, max_tokens, stop, the
// API it came on).
func ContentKey(api string, req llm.Request) string {
	b, _ := json.Marshal(canonical{API: api, Messages: req.Messages, Tools: req.Tools, N: req.Samples(),
		Temperature: req.Temperature, MaxTokens: req.MaxTokens, Stop: req.Stop})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// jsonError is an error body in OpenAI's shape.
func jsonError(msg string) ([]byte, error) {
	return json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
}
