package store

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "bench.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestRunItemCallRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	id, err := st.CreateRun(ctx, Run{Task: "game24", Strategy: "cot", Params: json.RawMessage(`{"k":10}`), Model: "sim",
		Simulated: true, Seed: 7, Range: "900:1000"})
	if err != nil {
		t.Fatal(err)
	}
	it := Item{RunID: id, Index: 900, Key: "4 5 6 10", Input: "4 5 6 10", Output: "Answer: x", Correct: true, Score: 0.3,
		Metrics: map[string]float64{"best_of_k": 1}, Detail: json.RawMessage(`{"samples":[]}`), PromptTokens: 10, Calls: 1}
	if err := st.PutItem(ctx, it); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := st.RecordCall(ctx, Call{RunID: id, Item: 900, Purpose: "cot", Request: json.RawMessage(`{}`),
			Response: json.RawMessage(`{}`), PromptTokens: 5, CompletionTokens: i, Requests: 1, Latency: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishRun(ctx, id, StatusDone, 2*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	r, err := st.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusDone || r.WallSeconds != 2 || r.Seed != 7 || string(r.Params) != `{"k":10}` || !r.Simulated {
		t.Errorf("run = %+v", r)
	}
	items, err := st.Items(ctx, id)
	if err != nil || len(items) != 1 {
		t.Fatalf("items = %v, %v", items, err)
	}
	if got := items[0]; got.Score != 0.3 || !got.Correct || got.Metrics["best_of_k"] != 1 || got.Key != "4 5 6 10" {
		t.Errorf("item = %+v", got)
	}
	tot, err := st.Totals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Calls != 3 || tot.PromptTokens != 15 || tot.CompletionTokens != 3 || tot.Requests != 3 {
		t.Errorf("totals = %+v", tot)
	}
	calls, err := st.Calls(ctx, id, 900)
	if err != nil || len(calls) != 3 || calls[0].Latency != time.Millisecond {
		t.Errorf("calls = %+v, %v", calls, err)
	}
}

func TestRunsFilter(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	for i := range 5 {
		if _, err := st.CreateRun(ctx, Run{Task: "game24", Strategy: "io", Model: "sim", Seed: int64(i), Range: "0:1"}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		f    RunFilter
		want []int64
	}{
		{RunFilter{}, []int64{1, 2, 3, 4, 5}},
		{RunFilter{Last: 2}, []int64{4, 5}},
		{RunFilter{IDs: []int64{2, 4}}, []int64{2, 4}},
		{RunFilter{IDs: []int64{1, 2, 3}, Last: 1}, []int64{3}},
	}
	for _, c := range cases {
		runs, err := st.Runs(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range runs {
			got = append(got, r.ID)
		}
		if len(got) != len(c.want) {
			t.Errorf("%+v: got %v want %v", c.f, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%+v: got %v want %v", c.f, got, c.want)
			}
		}
	}
	if _, err := st.GetRun(ctx, 99); err == nil {
		t.Error("GetRun(99) succeeded")
	}
}

// Commands close a store explicitly and again in a defer.
func TestCloseTwice(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "b.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRun(ctx, Run{Task: "game24", Strategy: "io", Model: "sim", Range: "0:1"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, RunFilter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("after reopen: %v %v", runs, err)
	}
	var mode string
	if err := st.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
}

func TestCorruptDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	junk := strings.Repeat("this is not sqlite ", 400)
	if err := os.WriteFile(path, []byte(junk), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != junk {
		t.Error("the corrupt file was modified")
	}
}

// Processes that open the same new database at once must not race on
// creating the schema (each store here has its own connection, as a
// process would).
func TestConcurrentOpenOfNewDatabase(t *testing.T) {
	for round := range 10 {
		path := filepath.Join(t.TempDir(), "new.db")
		errs := make(chan error, 4)
		for range cap(errs) {
			go func() {
				st, err := Open(context.Background(), path)
				if err == nil {
					err = st.Close()
				}
				errs <- err
			}()
		}
		for range cap(errs) {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
