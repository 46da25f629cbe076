package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CacheGet returns a cached response and the latency it originally took.
func (s *Store) CacheGet(ctx context.Context, key string) (json.RawMessage, time.Duration, bool, error) {
	var resp string
	var ms float64
	err := s.db.QueryRowContext(ctx, `SELECT response, latency_ms FROM cache WHERE key = ?`, key).Scan(&resp, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("cache lookup: %w", err)
	}
	return json.RawMessage(resp), msToDuration(ms), true, nil
}

// CachePut stores a response; the first one stored for a key wins.
func (s *Store) CachePut(ctx context.Context, key string, resp json.RawMessage, latency time.Duration) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO cache (key, response, latency_ms, created_at) VALUES (?, ?, ?, ?)`,
		key, string(resp), float64(latency.Microseconds())/1000, time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("cache store: %w", err)
	}
	return nil
}
