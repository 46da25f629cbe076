package llm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
)

// CallSeed derives the seed sent for a call from a base seed (an item's,
// or the run's for shared calls) and the call's identity. It stays below
// 2^30, so that seed+i for a request's later choices fits the 32-bit seeds
// some servers use.
func CallSeed(base int64, call string) int64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(base))
	h.Write(b[:])
	h.Write([]byte(call))
	return int64(h.Sum64() % (1 << 30))
}

// Identify sets each request's seed from its identity: an item's call from
// the item's seed and Call, a shared call (Share set) from the run's seed,
// Share and Call, so that every item asking it gets the same draw. A
// request without an identity is refused: silently seeding it alike with
// its neighbours would merge draws the strategy meant to be independent.
func Identify(itemSeed, runSeed int64) Middleware {
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			if req.Call == "" {
				return Response{}, fmt.Errorf("%s call without an identity (Request.Call): every call names its place in the strategy", req.Purpose)
			}
			if req.Share != "" {
				req.Seed = CallSeed(runSeed, req.Share+"|"+req.Call)
			} else {
				req.Seed = CallSeed(itemSeed, req.Call)
			}
			return next.Sample(ctx, req)
		})
	}
}

// Anonymous drops identities and sharing and sends every call with the
// item's seed, so that requests go out and are keyed as they were before
// calls had identities: runs recorded then resume with the seeds they were
// started with. (Strategies do not seed requests: Identify or Anonymous
// does.)
func Anonymous(itemSeed int64) Middleware {
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			req.Call, req.Share, req.Seed = "", "", itemSeed
			return next.Sample(ctx, req)
		})
	}
}

// Shared answers the calls a method declares shared (Share set) once per
// run: the first asker's request goes on, every other asker of the same
// request, at the same time or later, gets that response as a hit. The
// draw's identity is the request (its seed derived from Share and Call by
// Identify), so the answer does not depend on which item asked first, and
// an asker's result does not depend on timing. Requests without Share pass
// through. One Shared is made per run and put in every item's chain.
//
// A failed first ask is not remembered: the next asker tries again.
func Shared() Middleware {
	var (
		mu   sync.Mutex
		memo = map[string]*flight{}
	)
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			if req.Share == "" {
				return next.Sample(ctx, req)
			}
			key := CacheKey("", req)
			for {
				mu.Lock()
				f, ok := memo[key]
				if !ok {
					f = &flight{done: make(chan struct{})}
					memo[key] = f
					mu.Unlock()
					resp, err := next.Sample(ctx, req)
					if err == nil {
						f.raw, err = json.Marshal(resp)
						f.latency = resp.Latency
					}
					f.err = err
					if err != nil {
						mu.Lock()
						delete(memo, key)
						mu.Unlock()
					}
					close(f.done)
					return resp, err
				}
				mu.Unlock()
				select {
				case <-f.done:
				case <-ctx.Done():
					return Response{}, ctx.Err()
				}
				if f.err != nil {
					continue // the first asker failed: ask again
				}
				return decodeHit(key, f.raw, f.latency)
			}
		})
	}
}
