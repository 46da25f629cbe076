package llm

import (
	"context"
	"encoding/json"
	"maps"
	"time"
)

// Limit bounds the number of sampler calls in flight across everything that
// shares the returned middleware's sampler.
func Limit(n int) Middleware {
	if n < 1 {
		n = 1
	}
	sem := make(chan struct{}, n)
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return Response{}, ctx.Err()
			}
			defer func() { <-sem }()
			return next.Sample(ctx, req)
		})
	}
}

// WithExtra adds request body fields sent verbatim (--param) to every
// request; a field the request sets itself wins.
func WithExtra(fields map[string]json.RawMessage) Middleware {
	return func(next Sampler) Sampler {
		if len(fields) == 0 {
			return next
		}
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			extra := make(map[string]json.RawMessage, len(fields)+len(req.Extra))
			maps.Copy(extra, fields)
			maps.Copy(extra, req.Extra)
			req.Extra = extra
			return next.Sample(ctx, req)
		})
	}
}

// CallRecord is what the Record middleware hands to a Recorder.
type CallRecord struct {
	Purpose  string
	Call     string // the call's identity (Request.Call)
	Request  json.RawMessage
	Response json.RawMessage
	Usage    Usage
	Latency  time.Duration
	CacheHit bool
	Err      error
}

// Recorder receives every call; the store implements it per run and item.
type Recorder interface {
	RecordCall(ctx context.Context, c CallRecord) error
}

// Record passes every call, failed or not, to rec. A recording failure fails
// the call: an unrecorded call would make the run's numbers unverifiable.
func Record(rec Recorder) Middleware {
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			start := time.Now()
			resp, err := next.Sample(ctx, req)
			c := CallRecord{Purpose: req.Purpose, Call: req.Call, Usage: resp.Usage, Latency: time.Since(start), Err: err, CacheHit: resp.CacheHit}
			if resp.Latency > 0 { // measured nearer the model, or the original's for a cache hit
				c.Latency = resp.Latency
			}
			c.Request, _ = json.Marshal(req)
			c.Response, _ = json.Marshal(resp)
			if rerr := rec.RecordCall(context.WithoutCancel(ctx), c); rerr != nil && err == nil {
				return resp, rerr
			}
			return resp, err
		})
	}
}
