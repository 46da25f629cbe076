package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Cache modes.
const (
	CacheReadWrite = "readwrite" // answer from the cache, store new responses
	CacheRead      = "read"      // answer from the cache, store nothing
	CacheOff       = "off"
)

// CacheModes lists the modes for flags.
var CacheModes = []string{CacheReadWrite, CacheRead, CacheOff}

// ResponseCache keeps responses by key; the store implements it.
type ResponseCache interface {
	CacheGet(ctx context.Context, key string) (json.RawMessage, time.Duration, bool, error)
	CachePut(ctx context.Context, key string, resp json.RawMessage, latency time.Duration) error
}

// CacheKey identifies a request exactly: the backend (model, endpoint or
// simulator parameters), the messages, every sampling parameter, the tools,
// n and the seed (choice i is drawn with seed+i, so the sample index is part
// of the key). The purpose is not: it does not reach the model.
func CacheKey(backend string, req Request) string {
	req.Purpose = ""
	b, _ := json.Marshal(struct {
		Backend string  `json:"backend"`
		Request Request `json:"request"`
	}{backend, req})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Cache answers repeated requests from c without calling next: a rerun of a
// finished run makes no model calls and reproduces the same numbers. A hit
// comes back with CacheHit set and the original latency and usage.
func Cache(c ResponseCache, mode, backend string) Middleware {
	return func(next Sampler) Sampler {
		if mode == CacheOff {
			return next
		}
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			key := CacheKey(backend, req)
			raw, latency, ok, err := c.CacheGet(ctx, key)
			if err != nil {
				return Response{}, err
			}
			if ok {
				var resp Response
				if err := json.Unmarshal(raw, &resp); err != nil {
					return Response{}, fmt.Errorf("cached response %s: %w", key[:12], err)
				}
				resp.CacheHit, resp.Latency = true, latency
				return resp, nil
			}
			start := time.Now()
			resp, err := next.Sample(ctx, req)
			resp.Latency = time.Since(start) // the model's time, without the cache's own
			if err != nil || mode != CacheReadWrite {
				return resp, err
			}
			b, err := json.Marshal(resp)
			if err != nil {
				return resp, fmt.Errorf("cache response: %w", err)
			}
			if err := c.CachePut(context.WithoutCancel(ctx), key, b, resp.Latency); err != nil {
				return resp, err
			}
			return resp, nil
		})
	}
}
