package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func newRun(t *testing.T, st *Store) int64 {
	t.Helper()
	id, err := st.CreateRun(context.Background(), Run{Task: "game24", Strategy: "cot", Model: "sim", Range: "0:1"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func countRows(t *testing.T, st *Store, table string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

const valueTemplate = "Evaluate if given numbers can reach 24 (sure/likely/impossible)\n10 14\n10 + 14 = 24\nsure\n" +
	"11 12\n11 + 12 = 23\n12 - 11 = 1\n11 * 12 = 132\n11 / 12 = 0.91\nimpossible\n"

// A value prompt of the bundled kind: a template of few-shot examples and
// a short input.
func valueRequest(input string, seed int) json.RawMessage {
	text := valueTemplate + input + "\n"
	b, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": text}}, "n": 3, "seed": seed})
	return b
}

func TestBlobsAreStoredOnceAndCompressed(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	if err := st.PutPrompt(ctx, "h1", "game24/value", valueTemplate+"{{.Input}}\n"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		content []byte
		small   bool // stored smaller than it is
	}{
		{"template request", valueRequest("4 5 6", 1), true},
		{"empty", []byte{}, false},
		{"one byte", []byte("x"), false},
		{"binary", []byte{0, 1, 2, 0xff, 0xfe, 0x28, 0xb5, 0x2f, 0xfd}, false},
		{"not utf-8 json", []byte("{\"a\":\"\xff\xfe\"}"), false},
		{"large", bytes.Repeat([]byte("abcdefgh"), 1<<16), true},
	}
	for _, c := range cases {
		var ids [2]int64
		for i := range ids {
			w, err := st.beginWrite(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ids[i], err = w.putBlob(ctx, c.content); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if err := w.commit(); err != nil {
				t.Fatal(err)
			}
		}
		if ids[0] != ids[1] {
			t.Errorf("%s: stored twice (%d, %d)", c.name, ids[0], ids[1])
		}
		got, err := st.readBlobs(ctx, st.db, ids[:1])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got[ids[0]], c.content) {
			t.Errorf("%s: read back %q", c.name, got[ids[0]])
		}
		var stored int
		st.DB().QueryRow(`SELECT length(data) FROM blobs WHERE id = ?`, ids[0]).Scan(&stored)
		if c.small && stored >= len(c.content)/4 {
			t.Errorf("%s: %d bytes stored for %d", c.name, stored, len(c.content))
		}
		if stored > len(c.content)+1 {
			t.Errorf("%s: %d bytes stored for %d: more than a codec byte added", c.name, stored, len(c.content))
		}
	}
	// The template request compresses to its input and a few references.
	w, _ := st.beginWrite(ctx)
	id, err := w.putBlob(ctx, valueRequest("1 4 5", 233458724))
	if err != nil {
		t.Fatal(err)
	}
	w.commit()
	var stored int
	st.DB().QueryRow(`SELECT length(data) FROM blobs WHERE id = ?`, id).Scan(&stored)
	if stored > 60 {
		t.Errorf("a template request took %d bytes (of %d)", stored, len(valueRequest("1 4 5", 233458724)))
	}
}

// A blob whose hash matches but whose content differs is not taken for it:
// content is compared, so a collision costs a row, never a wrong text.
func TestBlobHashCollisionKeepsContentApart(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	want := []byte(`{"messages":[{"role":"user","content":"the real one"}]}`)
	h, _ := contentHash(want)
	w, err := st.beginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	impostor, _ := st.encode([]byte("another text with the same hash"))
	if _, err := w.Exec(`INSERT INTO blobs (hash, data) VALUES (?, ?)`, h, impostor); err != nil {
		t.Fatal(err)
	}
	id, err := w.putBlob(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	w.commit()
	got, err := st.readBlobs(ctx, st.db, []int64{id})
	if err != nil || !bytes.Equal(got[id], want) {
		t.Fatalf("got %q, %v", got[id], err)
	}
	if n := countRows(t, st, "blobs WHERE hash = "+fmt.Sprint(h)); n != 2 {
		t.Errorf("%d blobs with the hash, want 2", n)
	}
}

// A database read by a build whose prompts differ: each blob names its
// dictionary, and a store that did not know a dictionary reads it again.
func TestDictionariesTravelWithTheDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	writer, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	reader, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	put := func(content []byte) int64 {
		t.Helper()
		w, err := writer.beginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.putBlob(ctx, content)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.commit(); err != nil {
			t.Fatal(err)
		}
		return id
	}
	writer.PutPrompt(ctx, "a", "t/a", strings.Repeat("first template text, repeated. ", 20))
	first := []byte(`{"content":"` + strings.Repeat("first template text, repeated. ", 20) + `"}`)
	id1 := put(first)
	if got, err := reader.readBlobs(ctx, reader.db, []int64{id1}); err != nil || !bytes.Equal(got[id1], first) {
		t.Fatalf("first: %q %v", got[id1], err)
	}
	// A new template makes a new dictionary; the reader has its decoder.
	writer.PutPrompt(ctx, "b", "t/b", strings.Repeat("second template, another text. ", 20))
	second := []byte(`{"content":"` + strings.Repeat("second template, another text. ", 20) + `"}`)
	id2 := put(second)
	if n := countRows(t, writer, "dicts"); n != 2 {
		t.Errorf("%d dictionaries, want 2", n)
	}
	got, err := reader.readBlobs(ctx, reader.db, []int64{id1, id2})
	if err != nil || !bytes.Equal(got[id1], first) || !bytes.Equal(got[id2], second) {
		t.Fatalf("after a new dictionary: %q %q %v", got[id1], got[id2], err)
	}
}

func TestCallRecordsRoundTrip(t *testing.T) {
	created := time.Date(2026, 11, 23, 19, 10, 0, 123456789, time.UTC).UnixNano()
	cases := [][]callRecord{
		nil,
		{{ID: 1, Purpose: "cot", Request: 10, Response: 11, PromptTokens: 300, CompletionTokens: 50, Requests: 1, LatencyUS: 1234, Created: created}},
		{
			{ID: 7, Purpose: "propose", Request: 500, Response: 3, PromptTokens: -5, CompletionTokens: math.MaxInt32 + 10, ReasoningTokens: 12,
				Requests: 0, Cost: 0.00123, LatencyUS: 0, CacheHit: true, Error: "429 too many requests", Created: created},
			{ID: 9, Purpose: "", Request: 2, Response: 900000, Cost: math.Copysign(0, -1), LatencyUS: -3, NoCreated: true},
			{ID: 1 << 40, Purpose: "vålue\x00", Request: 1, Response: 1, Cost: math.Inf(1), Created: -1},
		},
	}
	for i, recs := range cases {
		got, err := decodeCalls(encodeCalls(recs))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(recs) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, recs) {
			t.Errorf("case %d:\n got %+v\nwant %+v", i, got, recs)
		}
		if math.Signbit(got[0].Cost) != math.Signbit(recs[0].Cost) {
			t.Errorf("case %d: cost sign lost", i)
		}
	}
	for _, bad := range [][]byte{nil, {}, {2}, {formatVersion}, {formatVersion, 5}, append(encodeCalls(cases[1]), 0)} {
		if _, err := decodeCalls(bad); err == nil {
			t.Errorf("decodeCalls(%v) succeeded", bad)
		}
	}
}

func TestNodesRoundTrip(t *testing.T) {
	nodes := []Node{
		{ID: 0, Parent: -1, Depth: 0, Value: math.NaN()},
		{ID: 1, Parent: 0, Depth: 1, Thought: "2 + 10 = 12 (left: 2 10 12)\n", Value: 20.002, Selected: true, Terminal: true, Visits: 3},
		{ID: 2, Parent: 0, Depth: 1, Thought: "ünïcode", Value: math.Inf(-1), Pruned: true},
	}
	got, err := decodeNodes(encodeNodes(nodes), 5, 900)
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		nodes[i].RunID, nodes[i].Item = 5, 900
	}
	if !math.IsNaN(got[0].Value) {
		t.Errorf("NaN value read as %v", got[0].Value)
	}
	got[0].Value, nodes[0].Value = 0, 0
	if !reflect.DeepEqual(got, nodes) {
		t.Errorf("got %+v\nwant %+v", got, nodes)
	}
}

// FuzzDecodeCalls: whatever a corrupt database holds, decoding fails
// cleanly or gives records that encode and decode to themselves.
func FuzzDecodeCalls(f *testing.F) {
	f.Add(encodeCalls([]callRecord{{ID: 1, Purpose: "cot", Request: 2, Response: 3, Error: "x", Cost: 1, CacheHit: true}}))
	f.Add([]byte{formatVersion, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := decodeCalls(b)
		if err != nil {
			return
		}
		enc := encodeCalls(recs)
		again, err := decodeCalls(enc)
		if err != nil {
			t.Fatalf("re-encoded records do not decode: %v", err)
		}
		// Every field survives the round trip (NaN costs included, hence
		// the printed comparison), and encoding is a fixed point.
		if fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", recs) {
			t.Fatalf("round trip changed the records:\n%+v\n%+v", recs, again)
		}
		if !bytes.Equal(encodeCalls(again), enc) {
			t.Fatal("encoding the decoded records gives other bytes")
		}
	})
}

// FuzzDecodeNodes is FuzzDecodeCalls for trees.
func FuzzDecodeNodes(f *testing.F) {
	f.Add(encodeNodes([]Node{{ID: 1, Parent: -1, Thought: "t", Value: 1, Visits: 2}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		nodes, err := decodeNodes(b, 1, 2)
		if err != nil {
			return
		}
		enc := encodeNodes(nodes)
		again, err := decodeNodes(enc, 1, 2)
		if err != nil {
			t.Fatalf("re-encoded nodes do not decode: %v", err)
		}
		if fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", nodes) {
			t.Fatalf("round trip changed the nodes:\n%+v\n%+v", nodes, again)
		}
		if !bytes.Equal(encodeNodes(again), enc) {
			t.Fatal("encoding the decoded nodes gives other bytes")
		}
	})
}

// An item's calls go in one batch when its log is flushed; ids follow
// every stored call; a checkpoint keeps the batches before it on resume.
func TestCallLogBatchesAndCheckpoints(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	run := newRun(t, st)
	if err := st.RecordCall(ctx, Call{RunID: run, Item: 1, Purpose: "cot"}); err != nil {
		t.Fatal(err)
	}
	log := st.CallLog(run, 2)
	for i := range 3 {
		log.Add(Call{Purpose: "react", Request: valueRequest(fmt.Sprint(i), i), Response: json.RawMessage(`{"choices":[]}`),
			PromptTokens: 10, CompletionTokens: i, Requests: 1, Cost: 0.25, Latency: 1500 * time.Microsecond})
	}
	if n := countRows(t, st, "call_batches"); n != 1 {
		t.Fatalf("%d batches before the flush, want 1", n)
	}
	if err := log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveCheckpoint(ctx, run, 2, 1, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	log.Add(Call{Purpose: "reflect", PromptTokens: 7, CacheHit: true, Cost: 0.5})
	if err := log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := log.Flush(ctx); err != nil { // nothing to store
		t.Fatal(err)
	}
	if n := countRows(t, st, "call_batches"); n != 3 {
		t.Errorf("%d batches, want 3", n)
	}
	calls, err := st.Calls(ctx, run, -1)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, c := range calls {
		ids = append(ids, c.ID)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 3, 4, 5}) {
		t.Fatalf("ids %v", ids)
	}
	if c := calls[1]; c.Item != 2 || c.Latency != 1500*time.Microsecond || string(c.Request) != string(valueRequest("0", 0)) ||
		c.Cost != 0.25 || c.CreatedAt.IsZero() {
		t.Errorf("call 2: %+v", c)
	}
	tot, _ := st.ItemTotals(ctx, run, 2)
	saved, _ := st.CacheSavings(ctx, run)
	if tot.Calls != 4 || tot.PromptTokens != 37 || tot.CompletionTokens != 3 || tot.Cost != 1.25 || saved.Hits != 1 || saved.Cost != 0.5 {
		t.Errorf("totals %+v, savings %+v", tot, saved)
	}
	// Item 2 has no result: a resume keeps what the checkpoint covers.
	if err := st.DropIncomplete(ctx, run); err != nil {
		t.Fatal(err)
	}
	if tot, _ := st.ItemTotals(ctx, run, 2); tot.Calls != 3 {
		t.Errorf("after DropIncomplete item 2 has %d calls, want the 3 before its checkpoint", tot.Calls)
	}
	if tot, _ := st.ItemTotals(ctx, run, 1); tot.Calls != 0 {
		t.Errorf("item 1 (no result, no checkpoint) kept %d calls", tot.Calls)
	}
}

// The cache and the call it answered share their blobs, and a call
// recorded after a cache hit adds no blob.
func TestCacheAndCallsShareBlobs(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	run := newRun(t, st)
	cache := st.ResponseCache(run)
	req, resp := valueRequest("4 5 6", 7), json.RawMessage(`{"choices":[{"index":0,"content":"sure"}],"usage":{"prompt_tokens":9}}`)
	if err := cache.CachePut(ctx, "k1", req, resp, 2500*time.Microsecond); err != nil {
		t.Fatal(err)
	}
	if err := cache.CachePut(ctx, "k1", req, json.RawMessage(`{"other":1}`), time.Second); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordCall(ctx, Call{RunID: run, Item: 0, Purpose: "value", Request: req, Response: resp}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, st, "blobs"); n != 2 {
		t.Fatalf("%d blobs for one request and response, want 2", n)
	}
	got, latency, ok, err := cache.CacheGet(ctx, "k1")
	if err != nil || !ok || string(got) != string(resp) || latency != 2500*time.Microsecond {
		t.Fatalf("CacheGet = %s %v %v %v", got, latency, ok, err)
	}
	if _, _, ok, _ := cache.CacheGet(ctx, "k2"); ok {
		t.Error("a key never stored was found")
	}
	// The rerun's call: the same texts, and a purpose that differs.
	other := json.RawMessage(strings.Replace(string(req), `"n":3`, `"n":3,"purpose":"vote"`, 1))
	st.RecordCall(ctx, Call{RunID: run, Item: 1, Purpose: "value", Request: req, Response: got, CacheHit: true})
	st.RecordCall(ctx, Call{RunID: run, Item: 1, Purpose: "vote", Request: other, Response: got, CacheHit: true})
	if n := countRows(t, st, "blobs"); n != 3 {
		t.Errorf("%d blobs, want 3 (only the request with another purpose is new)", n)
	}
	calls, _ := st.Calls(ctx, run, 1)
	if len(calls) != 2 || string(calls[1].Request) != string(other) || string(calls[0].Response) != string(resp) {
		t.Errorf("calls %+v", calls)
	}
}

// Deleting runs keeps what other runs use, drops the rest; blob ids a
// process remembers from before a collection are not used after it.
func TestDeleteRunsAndCollect(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	a, b := newRun(t, st), newRun(t, st)
	shared, ownA := valueRequest("shared", 1), valueRequest("only a", 2)
	st.ResponseCache(a).CachePut(ctx, "ka", ownA, json.RawMessage(`{"r":"a"}`), 0)
	st.RecordCall(ctx, Call{RunID: a, Item: 0, Request: shared, Response: json.RawMessage(`{"r":1}`)})
	st.RecordCall(ctx, Call{RunID: a, Item: 0, Request: ownA, Response: json.RawMessage(`{"r":"a"}`)})
	st.RecordCall(ctx, Call{RunID: b, Item: 0, Request: shared, Response: json.RawMessage(`{"r":1}`)})
	st.PutNodes(ctx, a, 0, []Node{{ID: 0, Parent: -1, Thought: "tree of a"}})
	st.PutItem(ctx, Item{RunID: a, Index: 0, Input: "x"})
	if err := st.FinishRun(ctx, b, StatusDone, 0, ""); err != nil {
		t.Fatal(err)
	}
	// a is still running
	if _, err := st.DeleteRuns(ctx, []int64{a}, false, false); !errors.Is(err, ErrRunRunning) {
		t.Fatalf("deleting a running run: %v", err)
	}
	if _, err := st.DeleteRuns(ctx, []int64{99}, false, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleting a missing run: %v", err)
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Runs) != 2 || stats.Calls != 3 || stats.Runs[0].OwnBytes == 0 || stats.Runs[1].OwnBytes != 0 {
		t.Errorf("stats %+v", stats.Runs)
	}
	// Remember run a's blobs as a running process would.
	log := st.CallLog(b, 1)
	log.Add(Call{Request: ownA, Response: json.RawMessage(`{"r":"a"}`)})
	if p := log.pending[0]; p.req == 0 {
		t.Fatal("the memo did not know run a's request")
	}
	d, err := st.DeleteRuns(ctx, []int64{a}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	// ownA's request and response, and a's tree, are gone; the shared pair stays.
	if d.Runs != 1 || d.Items != 1 || d.Calls != 2 || d.CacheEntries != 1 || d.Blobs != 3 {
		t.Errorf("deleted %+v", d)
	}
	for _, table := range []string{"runs", "items", "trees", "cache", "blobs"} {
		want := map[string]int{"runs": 1, "blobs": 2}[table]
		if n := countRows(t, st, table); n != want {
			t.Errorf("%s: %d rows left, want %d", table, n, want)
		}
	}
	if err := log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	calls, err := st.Calls(ctx, b, -1)
	if err != nil || len(calls) != 2 || string(calls[1].Request) != string(ownA) {
		t.Fatalf("run b after the collection: %+v %v", calls, err)
	}
	file, wal := st.FileSize()
	if _, err := st.Vacuum(ctx); err != nil {
		t.Fatal(err)
	}
	if after, afterWAL := st.FileSize(); after > file+wal || afterWAL != 0 {
		t.Errorf("vacuum: %d bytes and a log of %d after %d", after, afterWAL, file+wal)
	}
}

// The schema-8 fixture, migrated: every call (texts byte for byte, usage,
// latency, time, cache hit, error), tree and cache entry is what the old
// tables held.
func TestMigrationKeepsEveryCall(t *testing.T) {
	ctx := context.Background()
	fixture := filepath.Join("testdata", "v8.db")
	old, err := sql.Open("sqlite", "file:"+fixture+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v8.db")
	os.WriteFile(path, b, 0o644)
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var version int
	st.DB().QueryRow(`PRAGMA user_version`).Scan(&version)
	if version != len(migrations) {
		t.Fatalf("version %d after opening", version)
	}
	rows, err := old.Query(`SELECT id, run_id, item_idx, purpose, request, response, prompt_tokens, completion_tokens,
		reasoning_tokens, requests, cost, latency_ms, cache_hit, error, created_at FROM calls ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var want []Call
	for rows.Next() {
		var c Call
		var req, resp, created string
		var ms float64
		rows.Scan(&c.ID, &c.RunID, &c.Item, &c.Purpose, &req, &resp, &c.PromptTokens, &c.CompletionTokens, &c.ReasoningTokens,
			&c.Requests, &c.Cost, &ms, &c.CacheHit, &c.Error, &created)
		c.Request, c.Response, c.Latency = json.RawMessage(req), json.RawMessage(resp), msToDuration(ms)
		c.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		want = append(want, c)
	}
	rows.Close()
	var got []Call
	for run := int64(1); run <= 10; run++ {
		calls, err := st.Calls(ctx, run, -1)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, calls...)
	}
	if len(got) != len(want) || len(want) < 400 {
		t.Fatalf("%d calls after migrating, %d before", len(got), len(want))
	}
	byID := map[int64]Call{}
	for _, c := range got {
		byID[c.ID] = c
	}
	for _, w := range want {
		g := byID[w.ID]
		if !g.CreatedAt.Equal(w.CreatedAt) {
			t.Fatalf("call %d created %v, was %v", w.ID, g.CreatedAt, w.CreatedAt)
		}
		g.CreatedAt = w.CreatedAt
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("call %d:\n got %+v\nwant %+v", w.ID, g, w)
		}
	}
	var nodes, trees int
	old.QueryRow(`SELECT count(*) FROM nodes`).Scan(&nodes)
	old.QueryRow(`SELECT count(DISTINCT run_id || '/' || item_idx) FROM nodes`).Scan(&trees)
	if n := countRows(t, st, "trees"); n != trees || nodes == 0 {
		t.Errorf("%d trees, want %d", n, trees)
	}
	tree, _ := st.Nodes(ctx, 1, 901)
	var oldThought string
	var oldValue float64
	old.QueryRow(`SELECT thought, value FROM nodes WHERE run_id = 1 AND item_idx = 901 AND node_id = 3`).Scan(&oldThought, &oldValue)
	if len(tree) < 4 || tree[3].Thought != oldThought || tree[3].Value != oldValue {
		t.Errorf("tree of run 1 item 901: %+v", tree)
	}
	var entries int
	old.QueryRow(`SELECT count(*) FROM cache`).Scan(&entries)
	if n := countRows(t, st, "cache"); n != entries {
		t.Errorf("%d cache entries, was %d", n, entries)
	}
	var key, resp string
	old.QueryRow(`SELECT key, response FROM cache LIMIT 1`).Scan(&key, &resp)
	if got, _, ok, err := st.ResponseCache(0).CacheGet(ctx, key); !ok || err != nil || string(got) != resp {
		t.Errorf("cache entry %s: %s %v %v", key[:12], got, ok, err)
	}
	for _, table := range []string{"calls", "nodes"} {
		if err := st.DB().QueryRow(`SELECT 1 FROM ` + table).Scan(new(int)); err == nil || !strings.Contains(err.Error(), "no such table") {
			t.Errorf("table %s still there: %v", table, err)
		}
	}
}
