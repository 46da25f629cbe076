package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
)

// Blobs hold every request, response and search tree once, compressed: a
// call, a cache entry and a rerun's call that replays it refer to the same
// rows. A blob is found by the first 8 bytes of its content's SHA-256 and
// confirmed by comparing the content, so equal texts share a row and a hash
// collision costs a second row, never a wrong text.

// contentHash is the blob index key of content, and the memo's key (the
// first 128 bits of its SHA-256: equal keys are equal contents, short of a
// collision no one has found).
func contentHash(content []byte) (int64, memoKey) {
	sum := sha256.Sum256(content)
	return int64(binary.BigEndian.Uint64(sum[:8])), memoKey(sum[:16])
}

type memoKey [16]byte

// putBlob returns the id of the blob holding content, storing it if no blob
// does. The encoder must be ready.
func (w *writeTx) putBlob(ctx context.Context, content []byte) (int64, error) {
	s := w.s
	h, sum := contentHash(content)
	id, err := s.findBlob(ctx, w, h, content)
	if err != nil {
		return 0, err
	}
	if id == 0 {
		stored, err := s.encode(content)
		if err != nil {
			return 0, err
		}
		res, err := s.exec(ctx, w, qBlobInsert, h, stored)
		if err != nil {
			return 0, fmt.Errorf("store blob: %w", err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, fmt.Errorf("store blob: %w", err)
		}
	}
	w.learned = append(w.learned, learnedBlob{sum, id})
	return id, nil
}

// findBlob returns the id of a blob with this content, 0 if there is none.
func (s *Store) findBlob(ctx context.Context, q querier, h int64, content []byte) (int64, error) {
	rows, err := s.query(ctx, q, qBlobFind, h)
	if err != nil {
		return 0, fmt.Errorf("find blob: %w", err)
	}
	type candidate struct {
		id   int64
		data []byte
	}
	var cands []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.data); err != nil {
			rows.Close()
			return 0, fmt.Errorf("find blob: %w", err)
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("find blob: %w", err)
	}
	for _, c := range cands {
		got, err := s.decode(ctx, q, c.data)
		if err != nil {
			return 0, fmt.Errorf("blob %d: %w", c.id, err)
		}
		if bytes.Equal(got, content) {
			return c.id, nil
		}
	}
	return 0, nil
}

// readBlobs returns the contents of blobs by id; a missing id is an error.
func (s *Store) readBlobs(ctx context.Context, q querier, ids []int64) (map[int64][]byte, error) {
	out := make(map[int64][]byte, len(ids))
	var todo []int64
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = nil
			todo = append(todo, id)
		}
	}
	const chunk = 500
	for len(todo) > 0 {
		n := min(chunk, len(todo))
		args := make([]any, n)
		for i, id := range todo[:n] {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, `SELECT id, data FROM blobs WHERE id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read blobs: %w", err)
		}
		stored := map[int64][]byte{}
		for rows.Next() {
			var id int64
			var data []byte
			if err := rows.Scan(&id, &data); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read blobs: %w", err)
			}
			stored[id] = data
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read blobs: %w", err)
		}
		// Decoded after the rows are closed: decoding may read dictionaries
		// through the store's one connection.
		for id, data := range stored {
			if out[id], err = s.decode(ctx, q, data); err != nil {
				return nil, fmt.Errorf("blob %d: %w", id, err)
			}
		}
		todo = todo[n:]
	}
	for id, b := range out {
		if b == nil {
			return nil, fmt.Errorf("blob %d: %w", id, ErrNotFound)
		}
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// blobMemo remembers, by content hash, the blobs this process stored or
// read last, so that recording a call whose request and response the cache
// has just stored or replayed needs no lookup: the recorder asks right after
// the cache answered, so a few thousand entries do. It belongs to one
// generation of the gc table: collecting blobs starts a new one, and the
// first write transaction to see it empties the memo.
type blobMemo struct {
	mu        sync.Mutex
	cur, prev map[memoKey]int64 // cur fills up to memoSize, then becomes prev
	gen       int64
}

const memoSize = 1 << 13

func (b *blobMemo) put(sum memoKey, id int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.putLocked(sum, id)
}

func (b *blobMemo) putLocked(sum memoKey, id int64) {
	if b.cur == nil || len(b.cur) >= memoSize {
		b.prev, b.cur = b.cur, make(map[memoKey]int64, memoSize)
	}
	b.cur[sum] = id
}

// putIn is put for an id read in gc generation gen: ignored unless the
// memo belongs to that generation.
func (b *blobMemo) putIn(gen int64, sum memoKey, id int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if gen == b.gen {
		b.putLocked(sum, id)
	}
}

// get returns the id of the blob with this content (0 if unknown) and the
// generation it belongs to.
func (b *blobMemo) get(sum memoKey) (id, gen int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id, ok := b.cur[sum]; ok {
		return id, b.gen
	}
	return b.prev[sum], b.gen
}

// generation is the gc generation the memo belongs to.
func (b *blobMemo) generation() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gen
}

// checkGeneration empties the memo if blobs were collected since it was
// filled.
func (b *blobMemo) checkGeneration(gen int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if gen != b.gen {
		b.cur, b.prev, b.gen = nil, nil, gen
	}
}
