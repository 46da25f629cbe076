package store

import (
	"context"
	"encoding/json"
	"testing"
)

func TestReflectionsPerMemoryAndTrial(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	run := func() int64 {
		id, err := st.CreateRun(ctx, Run{Task: "hotpotqa", Strategy: "reflexion", Params: json.RawMessage(`{}`), Model: "sim", Range: "0:1"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a, b := run(), run()
	add := func(r Reflection) {
		t.Helper()
		if err := st.AddReflection(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	add(Reflection{Task: "hotpotqa", InstanceKey: "q1", Memory: RunMemory(a), RunID: a, Trial: 1, Text: "a1"})
	add(Reflection{Task: "hotpotqa", InstanceKey: "q1", Memory: RunMemory(a), RunID: a, Trial: 0, Text: "a0"})
	add(Reflection{Task: "hotpotqa", InstanceKey: "q2", Memory: RunMemory(a), RunID: a, Trial: 0, Text: "other question"})
	add(Reflection{Task: "game24", InstanceKey: "q1", Memory: RunMemory(a), RunID: a, Trial: 0, Text: "other task"})
	add(Reflection{Task: "hotpotqa", InstanceKey: "q1", Memory: RunMemory(b), RunID: b, Trial: 0, Text: "b0"})
	// A trial redone after a crash replaces its reflection.
	add(Reflection{Task: "hotpotqa", InstanceKey: "q1", Memory: RunMemory(a), RunID: a, Trial: 1, Text: "a1 again"})

	got, err := st.Reflections(ctx, "hotpotqa", "q1", RunMemory(a))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != "a0" || got[1].Text != "a1 again" || got[1].Trial != 1 || got[1].RunID != a || got[1].CreatedAt.IsZero() {
		t.Errorf("memory %s: %+v", RunMemory(a), got)
	}
	if got, _ := st.Reflections(ctx, "hotpotqa", "q1", RunMemory(b)); len(got) != 1 || got[0].Text != "b0" {
		t.Errorf("memory %s: %+v", RunMemory(b), got)
	}
	if all, _ := st.RunReflections(ctx, a); len(all) != 4 {
		t.Errorf("run %d wrote %d reflections, want 4", a, len(all))
	}
	if RunMemory(12) != "run:12" {
		t.Errorf("RunMemory(12) = %q", RunMemory(12))
	}
}
