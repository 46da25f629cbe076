package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Stored bytes (blobs, call batches) start with a codec byte.
const (
	codecRaw  = 0 // the content as is
	codecZstd = 1 // a zstd frame without its 4-byte magic number; the frame names its dictionary
)

// zstdMagic starts every zstd frame; it is dropped when stored.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// maxDecoded bounds what one stored value may decompress to, so that a
// corrupt database cannot exhaust memory.
const maxDecoded = 1 << 30

// maxDictBytes bounds a dictionary. The bundled prompts make about 55 KB.
const maxDictBytes = 256 << 10

// dictWindow is the encoder's window: the dictionary and what follows it.
const dictWindow = 2 * maxDictBytes

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// codec compresses stored text with zstd and a raw dictionary made of the
// prompt templates in the database (as they appear inside JSON) and the
// JSON around requests and responses: a request is mostly a template, so it
// compresses to its input and a few references. Each dictionary is kept in
// the dicts table under the id its frames name, so a database stays readable
// whatever the templates of the build that reads it.
type codec struct {
	mu sync.RWMutex
	// writing
	enc     *zstd.Encoder
	encDict int64
	covered map[string]bool // prompt hashes in the encoder's dictionary
	stale   bool            // a prompt not in the dictionary was stored
	// reading
	dec   *zstd.Decoder
	dicts map[int64][]byte
}

// encode returns content as stored: compressed when that is smaller. The
// encoder must be ready (readyEncoder).
func (s *Store) encode(content []byte) ([]byte, error) {
	s.codec.mu.RLock()
	enc := s.codec.enc
	s.codec.mu.RUnlock()
	if enc == nil {
		return nil, errors.New("store: encoder not ready")
	}
	if len(content) > 0 {
		z := enc.EncodeAll(content, make([]byte, 0, len(content)/2+16))
		if bytes.HasPrefix(z, zstdMagic) && len(z)-len(zstdMagic) < len(content) {
			z[len(zstdMagic)-1] = codecZstd
			return z[len(zstdMagic)-1:], nil
		}
	}
	return append([]byte{codecRaw}, content...), nil
}

// readyEncoder makes the encoder with the current dictionary, building (or
// finding) the dictionary on first use and after prompts were added. Writers
// call it before their transaction with q = s.db, so that a new dictionary
// is committed before anything refers to it (a migration, whose transaction
// also creates the table, passes its own). The database is read without
// the codec's lock held: the store has one connection, which a transaction
// of another goroutine may hold while it waits for the lock.
func (s *Store) readyEncoder(ctx context.Context, q querier) error {
	c := &s.codec
	c.mu.RLock()
	ready := c.enc != nil && !c.stale
	c.mu.RUnlock()
	if ready {
		return nil
	}
	id, content, covered, err := currentDict(ctx, q)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.enc != nil && id == c.encDict {
		c.covered, c.stale = covered, false
		return nil
	}
	// Writes are serialized on the store's one connection, so one encoder
	// does; the window need only reach back over the dictionary. On texts
	// this short the fastest level compresses as well as the default.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false), zstd.WithEncoderDictRaw(uint32(id), content),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(dictWindow), zstd.WithLowerEncoderMem(true),
		zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return fmt.Errorf("zstd encoder: %w", err)
	}
	if c.enc != nil {
		c.enc.Close()
	}
	c.enc, c.encDict, c.covered, c.stale = enc, id, covered, false
	return nil
}

// promptStored tells the codec a template text is in the database; one its
// dictionary lacks makes the next write build a new dictionary.
func (c *codec) promptStored(hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.enc != nil && !c.covered[hash] {
		c.stale = true
	}
}

// decode returns the content of stored bytes.
func (s *Store) decode(ctx context.Context, q querier, stored []byte) ([]byte, error) {
	if len(stored) == 0 {
		return nil, errors.New("empty stored value")
	}
	switch stored[0] {
	case codecRaw:
		return stored[1:], nil
	case codecZstd:
	default:
		return nil, fmt.Errorf("unknown codec %d", stored[0])
	}
	frame := make([]byte, 0, len(zstdMagic)+len(stored)-1)
	frame = append(append(frame, zstdMagic...), stored[1:]...)
	for attempt := 0; ; attempt++ {
		dec, err := s.decoder(ctx, q, attempt > 0)
		if err != nil {
			return nil, err
		}
		out, err := dec.DecodeAll(frame, nil)
		if errors.Is(err, zstd.ErrUnknownDictionary) && attempt == 0 {
			continue // another process may have added a dictionary since they were read
		}
		if err != nil {
			return nil, fmt.Errorf("decompress: %w", err)
		}
		return out, nil
	}
}

// decoder returns a decoder that knows every dictionary in the database,
// reading them again when reload is set (as encoder, without the lock held).
func (s *Store) decoder(ctx context.Context, q querier, reload bool) (*zstd.Decoder, error) {
	c := &s.codec
	c.mu.RLock()
	dec := c.dec
	c.mu.RUnlock()
	if dec != nil && !reload {
		return dec, nil
	}
	dicts, err := readDicts(ctx, q)
	if err != nil {
		return nil, err
	}
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(min(4, runtime.GOMAXPROCS(0))), zstd.WithDecoderMaxMemory(maxDecoded),
		zstd.WithDecoderLowmem(true)}
	for id, data := range dicts {
		opts = append(opts, zstd.WithDecoderDictRaw(uint32(id), data))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dec != nil && len(c.dicts) >= len(dicts) {
		return c.dec, nil
	}
	dec, err = zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	// A decoder another goroutine is using stays valid: a replaced one is
	// dropped, not closed (DecodeAll needs no goroutines of its own).
	c.dec, c.dicts = dec, dicts
	return dec, nil
}

// readDicts reads every dictionary by id.
func readDicts(ctx context.Context, q querier) (map[int64][]byte, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, data FROM dicts`)
	if err != nil {
		return nil, fmt.Errorf("read dictionaries: %w", err)
	}
	defer rows.Close()
	dicts := map[int64][]byte{}
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("read dictionaries: %w", err)
		}
		dicts[id] = data
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read dictionaries: %w", err)
	}
	return dicts, nil
}

// forget drops the encoder and decoder, so that the next writer and reader
// read the dictionaries again: after a rolled-back transaction that stored
// a dictionary, the id it had may be given to another. They are dropped,
// not closed: another goroutine may be using them (neither keeps
// goroutines of its own).
func (c *codec) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.enc, c.encDict, c.covered, c.stale = nil, 0, nil, false
	c.dec, c.dicts = nil, nil
}

// close releases the codec's encoder and decoder.
func (c *codec) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.enc != nil {
		c.enc.Close()
		c.enc = nil
	}
	if c.dec != nil {
		c.dec.Close()
		c.dec = nil
	}
}

// jsonFrame is the JSON around the text of requests and responses as the
// llm package writes them; it ends the dictionary, where references are
// cheapest.
const jsonFrame = `{"role":"assistant","content":"","tool_calls":[{"id":"call_","name":"","arguments":"{\"query\":\"\"}"}]},` +
	`{"role":"tool","content":"","tool_call_id":"call_","name":""}],"tools":[{"name":"","description":"","parameters":{"type":"object","properties":{"":{"type":"string"}},"required":[""]}}],` +
	`"max_tokens":100,"stop":["\n"],` +
	`{"choices":[{"index":1,"content":"","finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":100,"reasoning_tokens":0,"requests":1,"cost":0.001},"model":"sim"}` +
	`{"choices":[{"index":0,"content":"","finish_reason":"stop"},{"index":2,"content":"","finish_reason":"length"}],"usage":{"prompt_tokens":1000,"completion_tokens":10,"requests":1},"model":"` +
	`{"messages":[{"role":"system","content":""},{"role":"user","content":""}],"n":1,"temperature":0,"seed":1000000000,"purpose":"cot"}` +
	`{"messages":[{"role":"user","content":""}],"n":3,"temperature":0.7,"seed":100000000,"purpose":"value"}` +
	`{"messages":[{"role":"user","content":"`

// currentDict returns the dictionary for the prompt templates now in the
// database, storing it if it is new, and the hashes of the templates in it.
// The newest templates come last, nearest the text that refers to them, and
// the oldest are left out past maxDictBytes.
func currentDict(ctx context.Context, q querier) (int64, []byte, map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT hash, text FROM prompts ORDER BY rowid DESC`)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("dictionary: %w", err)
	}
	defer rows.Close()
	var parts [][]byte
	covered := map[string]bool{}
	size := len(jsonFrame)
	for rows.Next() {
		var hash, text string
		if err := rows.Scan(&hash, &text); err != nil {
			return 0, nil, nil, fmt.Errorf("dictionary: %w", err)
		}
		j, _ := json.Marshal(text) // as the text appears inside a JSON request
		j = j[1 : len(j)-1]
		if size+len(j) > maxDictBytes {
			continue
		}
		size += len(j)
		parts = append(parts, j)
		covered[hash] = true
	}
	if err := rows.Err(); err != nil {
		return 0, nil, nil, fmt.Errorf("dictionary: %w", err)
	}
	content := make([]byte, 0, size)
	for i := len(parts) - 1; i >= 0; i-- {
		content = append(content, parts[i]...)
	}
	content = append(content, jsonFrame...)
	sum := sha256.Sum256(content)
	if _, err := q.ExecContext(ctx, `INSERT OR IGNORE INTO dicts (hash, data) VALUES (?, ?)`, sum[:], content); err != nil {
		return 0, nil, nil, fmt.Errorf("store dictionary: %w", err)
	}
	var id int64
	if err := q.QueryRowContext(ctx, `SELECT id FROM dicts WHERE hash = ?`, sum[:]).Scan(&id); err != nil {
		return 0, nil, nil, fmt.Errorf("store dictionary: %w", err)
	}
	return id, content, covered, nil
}
