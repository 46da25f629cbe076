package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
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

// ResponseCache keeps responses by key; the store implements it. CachePut
// also gets the request as Record encodes it, so that a store can keep one
// copy of both for the cache entry and the recorded call.
type ResponseCache interface {
	CacheGet(ctx context.Context, key string) (json.RawMessage, time.Duration, bool, error)
	CachePut(ctx context.Context, key string, req, resp json.RawMessage, latency time.Duration) error
}

// CacheKey identifies a request exactly: the backend (model, endpoint or
// simulator parameters), the messages, every sampling parameter, the tools,
// n, the seed (choice i is drawn with seed+i, so the sample index is part
// of the key) and the call's identity (two identities are two draws, even
// should their derived seeds collide). The purpose and the sharing name are
// not: neither reaches the model (sharing acts through the seed).
func CacheKey(backend string, req Request) string {
	req.Purpose, req.Share = "", ""
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
//
// Identical requests in flight at once are sent once: the others wait for
// that answer and get it as a cache hit. Without this, which of two equal
// requests (ToT's duplicate value prompts) is paid for twice would depend on
// goroutine scheduling, and so would a run's calls and cost.
func Cache(c ResponseCache, mode, backend string) Middleware {
	return func(next Sampler) Sampler {
		if mode == CacheOff {
			return next
		}
		var (
			mu       sync.Mutex
			inflight = map[string]*flight{}
		)
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			key := CacheKey(backend, req)
			mu.Lock()
			if f, ok := inflight[key]; ok {
				mu.Unlock()
				select {
				case <-f.done:
				case <-ctx.Done():
					return Response{}, ctx.Err()
				}
				if f.err == nil {
					return decodeHit(key, f.raw, f.latency)
				}
				// The first caller failed (perhaps only its context):
				// this one asks for itself.
				return cacheOnce(ctx, c, mode, key, req, next, nil)
			}
			f := &flight{done: make(chan struct{})}
			inflight[key] = f
			mu.Unlock()
			defer func() {
				mu.Lock()
				delete(inflight, key)
				mu.Unlock()
				close(f.done)
			}()
			return cacheOnce(ctx, c, mode, key, req, next, f)
		})
	}
}

// flight is one request being answered; raw and latency are its response
// as the cache would hold it, err its failure.
type flight struct {
	done    chan struct{}
	raw     json.RawMessage
	latency time.Duration
	err     error
}

// cacheOnce answers req from the cache or from next, storing a new answer in
// readwrite mode and, when f is not nil, leaving it in f for the callers
// waiting on the same request.
func cacheOnce(ctx context.Context, c ResponseCache, mode, key string, req Request, next Sampler, f *flight) (resp Response, err error) {
	if f != nil {
		defer func() { f.err = err }()
	}
	raw, latency, ok, err := c.CacheGet(ctx, key)
	if err != nil {
		return Response{}, err
	}
	if ok {
		if f != nil {
			f.raw, f.latency = raw, latency
		}
		return decodeHit(key, raw, latency)
	}
	start := time.Now()
	resp, err = next.Sample(ctx, req)
	resp.Latency = time.Since(start) // the model's time, without the cache's own
	if err != nil {
		return resp, err
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return resp, fmt.Errorf("cache response: %w", err)
	}
	if f != nil {
		f.raw, f.latency = b, resp.Latency
	}
	if mode != CacheReadWrite {
		return resp, nil
	}
	rb, err := json.Marshal(req)
	if err != nil {
		return resp, fmt.Errorf("cache request: %w", err)
	}
	if err := c.CachePut(context.WithoutCancel(ctx), key, rb, b, resp.Latency); err != nil {
		return resp, err
	}
	return resp, nil
}

func decodeHit(key string, raw json.RawMessage, latency time.Duration) (Response, error) {
	var resp Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return Response{}, fmt.Errorf("cached response %s: %w", key[:12], err)
	}
	resp.CacheHit, resp.Latency = true, latency
	return resp, nil
}
