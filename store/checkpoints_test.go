package store

import (
	"context"
	"encoding/json"
	"testing"
)

// TestFinishedItemDropsCheckpoint checks that storing an item's result
// deletes its checkpoint, that other items keep theirs, and that vacuum
// drops the checkpoints of finished items an older build left.
func TestFinishedItemDropsCheckpoint(t *testing.T) {
	ctx := context.Background()
	st := openNamed(t, "c.db")
	run, err := st.CreateRun(ctx, Run{Task: "hotpotqa", Strategy: "lats", Range: "0:3"})
	if err != nil {
		t.Fatal(err)
	}
	big := json.RawMessage(`{"tree":"x"}`)
	for item := range 3 {
		if err := st.SaveCheckpoint(ctx, run, item, 2, big); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutItem(ctx, Item{RunID: run, Index: 1, Key: "k1"}); err != nil {
		t.Fatal(err)
	}
	for item, want := range []bool{true, false, true} {
		if _, _, ok, err := st.LoadCheckpoint(ctx, run, item); err != nil || ok != want {
			t.Errorf("item %d: checkpoint kept %v (%v), want %v", item, ok, err, want)
		}
	}
	// As an older build left it: item 2 finished with its checkpoint kept.
	if _, err := st.db.ExecContext(ctx, `INSERT INTO items (run_id, idx, key, input, output, correct, score, metrics, detail,
		prompt_tokens, completion_tokens, calls, requests, cost, wall_seconds) VALUES (?, 2, 'k2', '', '', 0, 0, '{}', '{}', 0, 0, 0, 0, 0, 0)`, run); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Vacuum(ctx); err != nil {
		t.Fatal(err)
	}
	for item, want := range []bool{true, false, false} {
		if _, _, ok, err := st.LoadCheckpoint(ctx, run, item); err != nil || ok != want {
			t.Errorf("after vacuum, item %d: checkpoint kept %v (%v), want %v", item, ok, err, want)
		}
	}
}
