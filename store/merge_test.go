package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/events"
)

// describeForTest is a Describe that treats runs with the same task,
// strategy, seed and range as one configuration, and reads a shard from
// the spec's "shard": [index, count, part, slot].
func describeForTest(r Run) (MergeInfo, error) {
	var spec struct {
		Shard []int `json:"shard"`
	}
	if err := json.Unmarshal(r.Spec, &spec); err != nil {
		return MergeInfo{}, err
	}
	info := MergeInfo{Fields: []MergeField{{"task", r.Task}, {"strategy", r.Strategy}, {"seed", fmt.Sprint(r.Seed)}, {"range", r.Range}},
		Key: r.ConfigKey, Spec: r.Spec}
	if len(spec.Shard) == 4 {
		info.Shard = &MergeShard{Index: spec.Shard[0], Count: spec.Shard[1], Part: spec.Shard[2], Slot: spec.Shard[3]}
		info.Spec = json.RawMessage(`{"merged":true}`)
	}
	return info, nil
}

func openNamed(t testing.TB, name string) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// allSet fails if a field of v (a struct) holds its zero value: a field
// added later and not written by the test would pass unnoticed.
func allSet(t *testing.T, what string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			t.Errorf("%s: field %s is not set by the test", what, rv.Type().Field(i).Name)
		}
	}
}

// fullRecord writes one item of run with every field of the item, its
// call and its tree nodes set to a value of its own, plus a step, a
// reflection and a cache entry.
func fullRecord(t *testing.T, st *Store, run int64) (Item, Call, []Node) {
	t.Helper()
	ctx := context.Background()
	if err := st.PutPrompt(ctx, "hash-1", "game24/propose.txt", "Input: {{.Input}}\nPossible next steps:\n"); err != nil {
		t.Fatal(err)
	}
	it := Item{RunID: run, Index: 11, Key: "key 11", Input: "1 2 3 4", Output: "(1+2+3)*4 = 24", Correct: true, Score: 0.75,
		Metrics: map[string]float64{"any_at_b": 0.5}, Detail: json.RawMessage(`{"votes":[3,1]}`), PromptTokens: 101,
		CompletionTokens: 102, ReasoningTokens: 7, Calls: 1, Requests: 2, Cost: 0.123, WallSeconds: 1.25, Error: "an error"}
	call := Call{ID: 1, RunID: run, Item: 11, Purpose: "propose",
		Request:      json.RawMessage(`{"messages":[{"role":"user","content":"Input: 1 2 3 4\nPossible next steps:\n"}],"n":3,"seed":9,"call":"s1/f2/propose"}`),
		Response:     json.RawMessage(`{"choices":[{"index":0,"content":"1 + 2 = 3 (left: 3 3 4)"}],"usage":{"prompt_tokens":21}}`),
		PromptTokens: 21, CompletionTokens: 22, ReasoningTokens: 3, Requests: 2, Cost: 0.0456, Latency: 1234 * time.Microsecond,
		CacheHit: true, Error: "call error", CreatedAt: time.Date(2025, 3, 4, 5, 6, 7, 8000, time.UTC),
		Role: "agent m@b", Identity: "s1/f2/propose", Step: "t0/s1", Seq: 2}
	nodes := []Node{
		{RunID: run, Item: 11, ID: 1, Parent: 4, Depth: 2, Thought: "3 3 4", Value: 0.9, Selected: true, Pruned: true, Terminal: true, Visits: 5},
		{RunID: run, Item: 11, ID: 2, Parent: 1, Depth: 3, Thought: "6 4", Value: -1.5, Visits: 6},
	}
	allSet(t, "Item", it)
	allSet(t, "Call", call)
	allSet(t, "Node", nodes[0])
	// The call with the item's other events, then a batch of events alone.
	log := st.CallLog(run, 11)
	log.Add(call)
	for _, e := range otherEvents()[:3] {
		if e.Seq > 0 || e.Kind == events.User { // a declared step's events
			log.Events().Record(events.WithStep(ctx, e.Step), e)
			continue
		}
		log.Events().Record(ctx, e)
	}
	if err := log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	log.Events().Record(ctx, otherEvents()[3])
	if err := log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.PutNodes(ctx, run, 11, nodes); err != nil {
		t.Fatal(err)
	}
	if err := st.PutStep(ctx, Step{RunID: run, Item: 11, Trial: 1, Step: 2, Kind: "thought", Content: "think"}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddReflection(ctx, Reflection{Task: "game24", InstanceKey: "key 11", Memory: RunMemory(run), RunID: run, Trial: 1, Text: "reflect"}); err != nil {
		t.Fatal(err)
	}
	if err := st.ResponseCache(run).CachePut(ctx, "cache-key", call.Request, call.Response, 777*time.Microsecond); err != nil {
		t.Fatal(err)
	}
	if err := st.PutItem(ctx, it); err != nil {
		t.Fatal(err)
	}
	return it, call, nodes
}

// otherEvents are an event of each kind but model calls with every field
// of its kind set, in the item's order.
func otherEvents() []events.Event {
	return []events.Event{
		{Kind: events.Tool, Step: "calc/get-sum", Call: "calc/get-sum/0a1b2c#0", Server: "calc", Tool: "get-sum",
			Arguments: json.RawMessage(`{"a":1,"b":2}`), Result: "Error: no", Error: "no", LatencyMS: 2.5, Cached: true},
		{Kind: events.User, Step: "t0/s1", Seq: 0, Text: "thanks"},
		{Kind: events.Verifier, Step: "t0/s1", Seq: 1, Call: "s0/verify", Scores: []float64{0.5, 0.25}, Error: "odd"},
		{Kind: events.Verdict, Correct: true, Score: 0.75, Answer: "24"},
	}
}

// readBack checks that run holds exactly what fullRecord wrote (with run's
// id and any call id).
func readBack(t *testing.T, st *Store, run int64, it Item, call Call, nodes []Node) {
	t.Helper()
	ctx := context.Background()
	items, err := st.Items(ctx, run)
	if err != nil || len(items) != 1 {
		t.Fatalf("items: %v %v", items, err)
	}
	it.RunID = run
	if !reflect.DeepEqual(items[0], it) {
		t.Errorf("item read back:\n%+v\nwritten:\n%+v", items[0], it)
	}
	calls, err := st.Calls(ctx, run, 11)
	if err != nil || len(calls) != 1 {
		t.Fatalf("calls: %v %v", calls, err)
	}
	call.RunID, call.ID = run, calls[0].ID
	if !reflect.DeepEqual(calls[0], call) {
		t.Errorf("call read back:\n%+v\nwritten:\n%+v", calls[0], call)
	}
	evs, err := st.ItemEvents(ctx, run, 11)
	if err != nil {
		t.Fatal(err)
	}
	model := events.Event{Kind: events.Model, Step: call.Step, Seq: call.Seq, Call: call.Identity, Role: call.Role, CallID: call.ID,
		Purpose: call.Purpose, PromptTokens: 21, CompletionTokens: 22, ReasoningTokens: 3, Requests: 2, Cost: 0.0456, LatencyMS: 1.234,
		Cached: true, Error: "call error", Time: call.CreatedAt}
	other := otherEvents()
	if want := []events.Event{other[0], other[1], other[2], model, other[3]}; !reflect.DeepEqual(evs, want) {
		t.Errorf("events read back:\n%+v\nwritten:\n%+v", evs, want)
	}
	got, err := st.Nodes(ctx, run, 11)
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		nodes[i].RunID = run
	}
	if !reflect.DeepEqual(got, nodes) {
		t.Errorf("nodes read back:\n%+v\nwritten:\n%+v", got, nodes)
	}
	steps, err := st.Steps(ctx, run, 11)
	if err != nil || len(steps) != 1 || steps[0] != (Step{RunID: run, Item: 11, Trial: 1, Step: 2, Kind: "thought", Content: "think"}) {
		t.Errorf("steps: %+v %v", steps, err)
	}
	refl, err := st.Reflections(ctx, "game24", "key 11", RunMemory(run))
	if err != nil || len(refl) != 1 || refl[0].Text != "reflect" || refl[0].RunID != run || refl[0].Trial != 1 {
		t.Errorf("reflections of memory %s: %+v %v", RunMemory(run), refl, err)
	}
	resp, lat, ok, err := st.ResponseCache(run).CacheGet(ctx, "cache-key")
	if err != nil || !ok || string(resp) != string(call.Response) || lat != 777*time.Microsecond {
		t.Errorf("cache entry: %s %v %v %v", resp, lat, ok, err)
	}
	tot, err := st.Totals(ctx, run)
	if err != nil || tot != (RunTotals{Calls: 1, Requests: 2, PromptTokens: 21, CompletionTokens: 22, ReasoningTokens: 3, Cost: 0.0456}) {
		t.Errorf("totals %+v %v", tot, err)
	}
}

// TestEveryFieldRoundTrips writes every field of an item, a call and tree
// nodes with values of their own and reads them back equal, directly and
// through a merge into another database.
func TestEveryFieldRoundTrips(t *testing.T) {
	ctx := context.Background()
	src := openNamed(t, "src.db")
	r := Run{Experiment: "exp", Task: "game24", Strategy: "tot", Params: json.RawMessage(`{"b":5}`), Model: "m", Endpoint: "http://a/v1",
		Simulated: true, SimParams: json.RawMessage(`{"skill":0.5}`), Seed: 3, Range: "11:12", Spec: json.RawMessage(`{"s":1}`),
		ConfigKey: "key", CodeVersion: "v1"}
	run, err := src.CreateRun(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.FinishRun(ctx, run, StatusDone, 2*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	it, call, nodes := fullRecord(t, src, run)
	readBack(t, src, run, it, call, nodes)

	out := openNamed(t, "out.db")
	// The output holds another run first, so ids differ from the source's.
	if _, err := out.CreateRun(ctx, Run{Task: "other", Strategy: "io", Range: "0:1"}); err != nil {
		t.Fatal(err)
	}
	if err := out.RecordCall(ctx, Call{RunID: 1, Purpose: "io", Request: json.RawMessage(`{"x":1}`)}); err != nil {
		t.Fatal(err)
	}
	res, err := Merge(ctx, out, []MergeSource{{"src.db", src}}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 1 || res.Runs[0].RunID == run || res.Runs[0].Added != 1 || len(res.Runs[0].Missing) != 0 {
		t.Fatalf("merge: %+v", res)
	}
	merged := res.Runs[0].RunID
	readBack(t, out, merged, it, call, nodes)
	got, err := out.GetRun(ctx, merged)
	if err != nil {
		t.Fatal(err)
	}
	src0, _ := src.GetRun(ctx, run)
	got.ID, src0.ID = 0, 0
	if !reflect.DeepEqual(got, src0) {
		t.Errorf("merged run:\n%+v\nsource run:\n%+v", got, src0)
	}
}

// makeShard writes a run of items [lo, hi) (those at positions ≡ part mod
// count) as a shard would, each with calls and a tree, and returns the
// database.
func makeShard(t testing.TB, st *Store, seed int64, lo, hi, part, count, callsPerItem int) int64 {
	t.Helper()
	ctx := context.Background()
	if err := st.PutPrompt(ctx, "cot", "game24/cot.txt", "Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Input: {{.Input}}\nSteps:\n"); err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`{"shard":[%d,%d,%d,0]}`, part, count, part)
	run, err := st.CreateRun(ctx, Run{Task: "game24", Strategy: "cotsc", Params: json.RawMessage(`{"k":5}`), Model: "sim", Seed: seed,
		Range: fmt.Sprintf("%d:%d", lo, hi), Spec: json.RawMessage(spec), ConfigKey: fmt.Sprintf("shard-%d", part)})
	if err != nil {
		t.Fatal(err)
	}
	for idx := lo; idx < hi; idx++ {
		if (idx-lo)%count != part {
			continue
		}
		log := st.CallLog(run, idx)
		for c := range callsPerItem {
			input := fmt.Sprintf("%d %d %d %d", idx%13+1, idx%7+1, c, idx)
			log.Add(Call{Purpose: "cotsc",
				Request: json.RawMessage(fmt.Sprintf(`{"messages":[{"role":"user","content":"Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Input: %s\nSteps:\n"}],"n":5,"temperature":0.7,"seed":%d,"purpose":"cotsc"}`,
					input, seed*100000+int64(idx))),
				Response: json.RawMessage(fmt.Sprintf(`{"choices":[{"index":0,"content":"%d + %d = %d\nAnswer: 24","finish_reason":"stop"}],"usage":{"prompt_tokens":60,"completion_tokens":12,"requests":1},"model":"sim"}`,
					idx, c, idx+c)),
				PromptTokens: 60, CompletionTokens: 12, Requests: 1, Cost: 0.001 * float64(c+1), Latency: time.Millisecond})
		}
		if err := log.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.PutItem(ctx, Item{RunID: run, Index: idx, Key: fmt.Sprint(idx), Input: "in", Output: fmt.Sprintf("answer %d", idx),
			Correct: idx%3 == 0, Score: float64(idx % 3), Calls: callsPerItem, Requests: callsPerItem, Cost: 0.001}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishRun(ctx, run, StatusDone, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestMergeMissingDuplicateIdempotent merges 2 of 3 shards (items missing,
// reported, run not done), then all three with one given twice under
// another name (duplicates reported, none stored twice), then again (no
// change).
func TestMergeMissingDuplicateIdempotent(t *testing.T) {
	ctx := context.Background()
	var shards []*Store
	for i := range 3 {
		st := openNamed(t, fmt.Sprintf("s%d.db", i))
		makeShard(t, st, 1, 900, 910, i, 3, 2)
		shards = append(shards, st)
	}
	out := openNamed(t, "out.db")
	src := func(i int) MergeSource { return MergeSource{fmt.Sprintf("s%d.db", i), shards[i]} }
	res, err := Merge(ctx, out, []MergeSource{src(0), src(1)}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if r.Items != 7 || r.Expected != 10 || fmt.Sprint(r.Missing) != "[902 905 908]" || r.Status != StatusInterrupted || len(r.Duplicates) != 0 {
		t.Fatalf("2 of 3 shards: %+v", r)
	}
	run, _ := out.GetRun(ctx, r.RunID)
	if run.Status != StatusInterrupted || !strings.Contains(run.Error, "missing 902, 905, 908") {
		t.Errorf("run after a partial merge: %s %q", run.Status, run.Error)
	}
	// Shard 1 again, as a copy under another name, with shard 2.
	dup := openNamed(t, "copy.db")
	makeShard(t, dup, 1, 900, 910, 1, 3, 2)
	res, err = Merge(ctx, out, []MergeSource{src(2), {"copy.db", dup}}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	r = res.Runs[0]
	if r.Items != 10 || r.Added != 3 || len(r.Missing) != 0 || r.Status != StatusDone || r.Created {
		t.Fatalf("after the last shard: %+v", r)
	}
	// Copies of items merged before from another source are no news.
	if len(r.Duplicates) != 0 {
		t.Errorf("duplicates %+v", r.Duplicates)
	}
	tot, err := out.Totals(ctx, r.RunID)
	if err != nil || tot.Calls != 20 {
		t.Errorf("totals after merging: %+v %v; want 20 calls (2 per item, none twice)", tot, err)
	}
	// Two sources with the same item in one merge: reported.
	out2 := openNamed(t, "out2.db")
	res, err = Merge(ctx, out2, []MergeSource{src(1), {"copy.db", dup}}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Runs[0].Duplicates; len(d) != 3 || d[0].Index != 901 || d[0].Differs || d[0].Kept != "s1.db run 1 (shard 1/3)" {
		t.Errorf("duplicates %+v", d)
	}
	if tot, _ := out2.Totals(ctx, res.Runs[0].RunID); tot.Calls != 6 {
		t.Errorf("%d calls; want 6 (3 items, 2 calls each, once)", tot.Calls)
	}
	// Again: nothing changes.
	before, _ := out.Stats(ctx)
	res, err = Merge(ctx, out, []MergeSource{src(0), src(1), src(2)}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := out.Stats(ctx)
	if res.Runs[0].Added != 0 || fmt.Sprint(before.Tables) != fmt.Sprint(after.Tables) || before.Calls != after.Calls {
		t.Errorf("merging again: %+v\nbefore %+v\nafter %+v", res.Runs[0], before.Tables, after.Tables)
	}
}

// TestMergeRefusesOtherConfigurations checks that shards of one slot with
// different settings are refused, naming the setting.
func TestMergeRefusesOtherConfigurations(t *testing.T) {
	ctx := context.Background()
	a, b := openNamed(t, "a.db"), openNamed(t, "b.db")
	makeShard(t, a, 1, 900, 910, 0, 2, 1)
	makeShard(t, b, 2, 900, 910, 1, 2, 1)
	out := openNamed(t, "out.db")
	_, err := Merge(ctx, out, []MergeSource{{"a.db", a}, {"b.db", b}}, MergeOptions{Describe: describeForTest})
	if !errors.Is(err, ErrMergeMismatch) || !strings.Contains(err.Error(), `seed differs: "1" in a.db run 1 (shard 0/2), seed "2" in b.db run 1 (shard 1/2)`) {
		t.Fatalf("err %v", err)
	}
	if runs, _ := out.Runs(ctx, RunFilter{}); len(runs) != 0 {
		t.Errorf("a refused merge stored %d runs", len(runs))
	}
}

// TestMergeAcrossDictionaries merges from a database whose dictionary id 1
// is another dictionary than the output's id 1 (other prompts came first),
// so frames cannot be copied as stored: they must be compressed again and
// read back equal, also after reopening.
func TestMergeAcrossDictionaries(t *testing.T) {
	ctx := context.Background()
	src := openNamed(t, "src.db")
	makeShard(t, src, 1, 0, 6, 0, 1, 3)
	dir := t.TempDir()
	outPath := filepath.Join(dir, "out.db")
	out, err := Open(ctx, outPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.PutPrompt(ctx, "other", "hotpotqa/react.txt", strings.Repeat("Thought: Action: Search[entity] Observation: ", 40)); err != nil {
		t.Fatal(err)
	}
	other, err := out.CreateRun(ctx, Run{Task: "hotpotqa", Strategy: "react", Range: "0:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.RecordCall(ctx, Call{RunID: other, Purpose: "react", Request: json.RawMessage(`{"messages":[{"role":"user","content":"Thought: Action: Search[x]"}]}`)}); err != nil {
		t.Fatal(err)
	}
	var srcHash, outHash []byte
	src.db.QueryRow(`SELECT hash FROM dicts WHERE id = 1`).Scan(&srcHash)
	out.db.QueryRow(`SELECT hash FROM dicts WHERE id = 1`).Scan(&outHash)
	if len(srcHash) == 0 || string(srcHash) == string(outHash) {
		t.Fatalf("the test needs dictionary 1 to differ: %x %x", srcHash, outHash)
	}
	res, err := Merge(ctx, out, []MergeSource{{"src.db", src}}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	want, err := src.Calls(ctx, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	out, err = Open(ctx, outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	got, err := out.Calls(ctx, res.Runs[0].RunID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) != 18 {
		t.Fatalf("%d calls merged, %d in the source", len(got), len(want))
	}
	for i := range got {
		if string(got[i].Request) != string(want[i].Request) || string(got[i].Response) != string(want[i].Response) || got[i].Cost != want[i].Cost {
			t.Errorf("call %d: %s / %s, want %s / %s", i, got[i].Request, got[i].Response, want[i].Request, want[i].Response)
		}
	}
	if _, err := out.CollectGarbage(ctx); err != nil {
		t.Fatal(err)
	}
	if again, err := out.Calls(ctx, res.Runs[0].RunID, -1); err != nil || len(again) != 18 {
		t.Errorf("after collecting garbage: %d calls, %v", len(again), err)
	}
}

// BenchmarkMerge10Shards merges 10 shards of a 10,000-item CoT-SC run (one
// call of 5 choices per item, as cotsc k=5 makes) into an empty database.
func BenchmarkMerge10Shards(b *testing.B) {
	ctx := context.Background()
	var srcs []MergeSource
	for i := range 10 {
		st := openNamed(b, fmt.Sprintf("s%d.db", i))
		makeShard(b, st, 1, 0, 10000, i, 10, 1)
		srcs = append(srcs, MergeSource{fmt.Sprintf("s%d.db", i), st})
	}
	b.ResetTimer()
	for n := range b.N {
		out := openNamed(b, fmt.Sprintf("out%d.db", n))
		res, err := Merge(ctx, out, srcs, MergeOptions{Describe: describeForTest})
		if err != nil {
			b.Fatal(err)
		}
		if res.Runs[0].Items != 10000 || len(res.Runs[0].Missing) != 0 {
			b.Fatalf("%+v", res.Runs[0])
		}
	}
}

// tableDump is every row of the tables a merge writes, for comparing a
// database before and after.
func tableDump(t *testing.T, st *Store) string {
	t.Helper()
	var sb strings.Builder
	for _, q := range []string{
		`SELECT id, status, error FROM runs ORDER BY id`,
		`SELECT run_id, idx, cost FROM items ORDER BY run_id, idx`,
		`SELECT last_id, run_id, item_idx, length(data) FROM call_batches ORDER BY last_id`,
		`SELECT id, hash, length(data) FROM blobs ORDER BY id`,
		`SELECT id, hex(hash) FROM dicts ORDER BY id`,
		`SELECT hash, name FROM prompts ORDER BY hash`,
		`SELECT hex(key), response FROM cache ORDER BY key`,
		`SELECT run_id, item_idx, blob FROM trees ORDER BY run_id, item_idx`,
	} {
		rows, err := st.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&sb, vals...)
		}
		rows.Close()
		fmt.Fprintln(&sb, "--")
	}
	return sb.String()
}

// TestFailedMergeLeavesOutputUnchanged merges a source whose last blob is
// missing into a database that lacks the source's prompts: the merge fails
// after copying part of it, and the output holds exactly what it held
// before (no runs, items, blobs, prompts or dictionaries of the failed
// merge). A merge from an intact source through the same store then reads
// back equal after reopening: nothing of the rolled-back dictionary stays
// in the store's codec.
func TestFailedMergeLeavesOutputUnchanged(t *testing.T) {
	ctx := context.Background()
	bad := openNamed(t, "bad.db")
	makeShard(t, bad, 1, 0, 6, 0, 1, 3)
	if _, err := bad.db.Exec(`DELETE FROM blobs WHERE id = (SELECT max(id) FROM blobs)`); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(t.TempDir(), "out.db")
	out, err := Open(ctx, outPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.PutPrompt(ctx, "other", "hotpotqa/react.txt", strings.Repeat("Thought: Action: Search[entity] Observation: ", 40)); err != nil {
		t.Fatal(err)
	}
	other, err := out.CreateRun(ctx, Run{Task: "hotpotqa", Strategy: "react", Range: "0:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.RecordCall(ctx, Call{RunID: other, Purpose: "react", Request: json.RawMessage(`{"messages":[{"role":"user","content":"Thought: Action: Search[x]"}]}`)}); err != nil {
		t.Fatal(err)
	}
	before := tableDump(t, out)
	if _, err := Merge(ctx, out, []MergeSource{{"bad.db", bad}}, MergeOptions{Describe: describeForTest}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("merging a source with a missing blob: %v", err)
	}
	if after := tableDump(t, out); after != before {
		t.Errorf("a failed merge changed the output:\nbefore\n%s\nafter\n%s", before, after)
	}

	good := openNamed(t, "good.db")
	makeShard(t, good, 1, 0, 6, 0, 1, 3)
	res, err := Merge(ctx, out, []MergeSource{{"good.db", good}}, MergeOptions{Describe: describeForTest})
	if err != nil {
		t.Fatal(err)
	}
	want, err := good.Calls(ctx, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	out, err = Open(ctx, outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	got, err := out.Calls(ctx, res.Runs[0].RunID, -1)
	if err != nil || len(got) != len(want) || len(got) != 18 {
		t.Fatalf("%d calls merged (%v), %d in the source", len(got), err, len(want))
	}
	for i := range got {
		if string(got[i].Request) != string(want[i].Request) || string(got[i].Response) != string(want[i].Response) {
			t.Errorf("call %d: %s / %s, want %s / %s", i, got[i].Request, got[i].Response, want[i].Request, want[i].Response)
		}
	}
}

// TestMergeIntoAShardRefused checks that merging into a database that holds
// a shard of the configuration merged is refused (its run would hold every
// item and still say it is one shard) and changes nothing.
func TestMergeIntoAShardRefused(t *testing.T) {
	ctx := context.Background()
	s0, s1 := openNamed(t, "s0.db"), openNamed(t, "s1.db")
	makeShard(t, s0, 1, 900, 906, 0, 2, 1)
	makeShard(t, s1, 1, 900, 906, 1, 2, 1)
	before := tableDump(t, s0)
	_, err := Merge(ctx, s0, []MergeSource{{"s1.db", s1}}, MergeOptions{Describe: describeForTest})
	if !errors.Is(err, ErrMergeMismatch) || !strings.Contains(err.Error(), "already holds run 1, shard 0/2") || !strings.Contains(err.Error(), "new database") {
		t.Fatalf("merging into a shard's database: %v", err)
	}
	if after := tableDump(t, s0); after != before {
		t.Errorf("a refused merge changed the shard's database")
	}
}
