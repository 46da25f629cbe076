package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RunCache is the response cache as one run uses it (llm.ResponseCache):
// entries are shared by every run, and those a run stores are marked as its
// own, so that deleting the run can drop them. An entry refers to the blobs
// of the request and response, which the call that made them refers to too.
type RunCache struct {
	st  *Store
	run int64
}

// ResponseCache returns the cache for a run's calls.
func (s *Store) ResponseCache(runID int64) RunCache { return RunCache{st: s, run: runID} }

// cacheKey is how a key is stored: 16 bytes of its SHA-256 (keys are
// SHA-256 hex already; 128 bits keep collisions out of reach).
func cacheKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:16]
}

// CacheGet returns a cached response and the latency it originally took.
func (c RunCache) CacheGet(ctx context.Context, key string) (resp json.RawMessage, latency time.Duration, ok bool, err error) {
	c.st.onReader(func() { resp, latency, ok, err = c.get(ctx, key) })
	return resp, latency, ok, err
}

func (c RunCache) get(ctx context.Context, key string) (json.RawMessage, time.Duration, bool, error) {
	s := c.st
	var us int64
	var respID int64
	var reqID sql.NullInt64
	var resp, req []byte
	var gen int64 // of the snapshot the ids come from
	err := s.queryRow(ctx, s.rdb, qCacheGet, cacheKey(key)).Scan(&us, &respID, &resp, &reqID, &req, &gen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("cache lookup: %w", err)
	}
	text, err := s.decode(ctx, s.rdb, resp)
	if err != nil {
		return nil, 0, false, fmt.Errorf("cache lookup: %w", err)
	}
	_, sum := contentHash(text)
	// The ids go to the memo only if no collection ran since the snapshot
	// (another process's bench rm may have deleted these blobs since).
	s.memo.putIn(gen, sum, respID)
	// The recorder finds the request's blob in the memo when the call's
	// request is the same text (the key leaves the purpose out).
	if reqID.Valid {
		if b, err := s.decode(ctx, s.rdb, req); err == nil {
			_, sum := contentHash(b)
			s.memo.putIn(gen, sum, reqID.Int64)
		}
	}
	return json.RawMessage(text), time.Duration(us) * time.Microsecond, true, nil
}

// CachePut stores a response and the request that asked for it; the first
// one stored for a key wins.
func (c RunCache) CachePut(ctx context.Context, key string, req, resp json.RawMessage, latency time.Duration) error {
	s := c.st
	w, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	defer w.Rollback()
	var stored bool
	if err := s.queryRow(ctx, w, qCacheHas, cacheKey(key)).Scan(&stored); err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	if stored { // the first one stored wins: keep no texts for this one
		return nil
	}
	if len(req) == 0 {
		req = json.RawMessage("{}")
	}
	if len(resp) == 0 {
		resp = json.RawMessage("{}")
	}
	reqID, err := w.putBlob(ctx, req)
	if err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	respID, err := w.putBlob(ctx, resp)
	if err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	var run any
	if c.run != 0 {
		run = c.run
	}
	if _, err := s.exec(ctx, w, qCachePut, cacheKey(key), reqID, respID, latency.Microseconds(), run); err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	return nil
}
