package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/tasks"
)

// Tool cache modes (--tool-cache).
const (
	CacheReadWrite = llm.CacheReadWrite // replay recorded results, record new ones
	CacheOff       = llm.CacheOff       // every call runs live
)

// CacheModes lists the modes for flags.
var CacheModes = []string{CacheReadWrite, CacheOff}

// Item is the set as one item uses it (a tasks.ToolHost): each call gets
// an identity, server/tool/<args digest>#k with k counting the item's
// identical calls in order, and is answered from the cache under that
// identity, the item's seed and the server's tool digest when it was
// recorded before, so a rerun or resume replays it with no call at any
// concurrency. A tool's refusal (an isError result, a JSON-RPC error) is
// an answer, cached like any; failures of the server (crash, hang, broken
// connection) are marked ServerFailed and not cached.
type Item struct {
	set   *Set
	cache llm.ResponseCache // nil: none
	seed  int64
	item  int // sent in each call's _meta (MetaItem)

	mu   sync.Mutex
	seen map[string]int
}

// ForItem returns the host of one item (its row index and seed); cache
// nil or mode CacheOff runs every call live.
func (s *Set) ForItem(cache llm.ResponseCache, mode string, seed int64, item int) *Item {
	if mode == CacheOff {
		cache = nil
	}
	return &Item{set: s, cache: cache, seed: seed, item: item, seen: map[string]int{}}
}

// Specs lists the tools offered.
func (it *Item) Specs() []tasks.ExternalTool { return it.set.Specs() }

// Call runs a tool by its offered name, or replays its recorded result.
func (it *Item) Call(ctx context.Context, name string, args json.RawMessage) (tasks.ToolResult, error) {
	i, ok := it.set.byName[name]
	if !ok {
		return tasks.ToolResult{Refused: true, Observation: fmt.Sprintf("Unknown tool %q.", clip(name, 80))}, nil
	}
	t := it.set.tools[i]
	args = canonical(args)
	sum := sha256.Sum256(args)
	base := fmt.Sprintf("%s/%s/%s", t.srv.cfg.Name, t.name, hex.EncodeToString(sum[:6]))
	it.mu.Lock()
	k := it.seen[base]
	it.seen[base]++
	it.mu.Unlock()
	rec := &events.ToolCall{ID: fmt.Sprintf("%s#%d", base, k), Server: t.srv.cfg.Name, Tool: t.name, Arguments: args}
	key := it.key(t, rec.ID, args)
	if it.cache != nil {
		raw, lat, hit, err := it.cache.CacheGet(ctx, key)
		if err != nil {
			return tasks.ToolResult{}, err
		}
		var o outcome
		if hit && json.Unmarshal(raw, &o) == nil {
			o = o.redacted()
			rec.Result, rec.Error, rec.Cached = o.Result, o.Error, true
			rec.LatencyMS = float64(lat.Microseconds()) / 1000
			return result(rec), nil
		}
	}
	start := time.Now()
	o := it.set.call(ctx, t, args, it.item).redacted()
	lat := time.Since(start)
	if err := ctx.Err(); err != nil {
		return tasks.ToolResult{}, err
	}
	if o.Result == "" && o.Error != "" {
		o.Result = "Error: " + o.Error
	}
	rec.Result, rec.Error, rec.LatencyMS = o.Result, o.Error, float64(lat.Microseconds())/1000
	rec.ServerFailed = o.Transient
	if it.cache != nil && !o.Transient {
		req, _ := json.Marshal(struct {
			Server, Tool, ID string
			Arguments        json.RawMessage
		}{t.srv.cfg.Name, t.name, rec.ID, args})
		resp, _ := json.Marshal(o)
		if err := it.cache.CachePut(context.WithoutCancel(ctx), key, req, resp, lat); err != nil {
			return tasks.ToolResult{}, err
		}
	}
	return result(rec), nil
}

// redacted is an outcome without any key bench knows, a server's own
// credentials included (Register): what a tool returns reaches the
// model, the cache and the run's records.
func (o outcome) redacted() outcome {
	o.Result, o.Error = secrets.Process.Redact(o.Result), secrets.Process.Redact(o.Error)
	return o
}

func result(rec *events.ToolCall) tasks.ToolResult {
	obs := rec.Result
	if obs == "" {
		obs = "(the tool returned nothing)"
	}
	return tasks.ToolResult{Observation: obs, Refused: rec.Error != "", Call: rec}
}

// key is the cache key of a call: never equal to a model call's (whose
// keys hash another structure).
func (it *Item) key(t tool, id string, args json.RawMessage) string {
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(it.seed))
	b, _ := json.Marshal(struct {
		Kind, Server, Digest, Tool, ID string
		Seed                           []byte
		Arguments                      json.RawMessage
	}{"mcp tool call", t.srv.cfg.Name, t.srv.cfg.Digest, t.name, id, seed[:], args})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonical re-encodes arguments with sorted keys, so that equal
// arguments written differently are one call; not JSON stays as it is.
func canonical(args json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return append(json.RawMessage(nil), args...)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(json.RawMessage(nil), args...)
	}
	return b
}
