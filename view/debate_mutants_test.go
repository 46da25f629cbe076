package view

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestDebateGridPlaces: rounds are numbered from 1, and each cell shows
// the call of its own round and agent (r<round>/a<agent>, 0-based), for
// every round and agent of a grid wider than it is tall.
func TestDebateGridPlaces(t *testing.T) {
	k := func(s string) *string { return &s }
	const rounds, agents = 2, 3
	var rs []any
	var calls []callView
	for r := range rounds {
		var turns []any
		for a := range agents {
			turns = append(turns, map[string]any{"output": fmt.Sprintf("A: %d", a), "key": k(fmt.Sprint(a))})
			c := callView{Identity: fmt.Sprintf("r%d/a%d", r, a)}
			c.ID = int64(100*(r+1) + a)
			calls = append(calls, c)
		}
		rs = append(rs, map[string]any{"turns": turns, "vote": map[string]any{"key": "0", "winner": 0}})
	}
	detail, _ := json.Marshal(map[string]any{"agents": agents, "rounds": rs})
	v := debateView(detail, calls)
	if v == nil {
		t.Fatal("no grid")
	}
	rows := v["Rounds"].([]debateRow)
	if len(rows) != rounds {
		t.Fatalf("%d rows, want %d", len(rows), rounds)
	}
	for r, row := range rows {
		if row.Round != r+1 {
			t.Errorf("row %d is numbered round %d, want %d", r, row.Round, r+1)
		}
		for a, c := range row.Cells {
			if want := int64(100*(r+1) + a); c.CallID != want {
				t.Errorf("round %d agent %d shows call %d, want %d", r+1, a+1, c.CallID, want)
			}
		}
	}
}
