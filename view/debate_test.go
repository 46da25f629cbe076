package view

import (
	"encoding/json"
	"testing"
)

func TestDebateGrid(t *testing.T) {
	k := func(s string) *string { return &s }
	detail, _ := json.Marshal(map[string]any{"agents": 2, "models": []string{"", "qwen"}, "rounds": []any{
		map[string]any{"turns": []any{map[string]any{"output": "A: 5", "key": k("5")}, map[string]any{"output": "junk", "key": nil}},
			"vote": map[string]any{"key": "5", "winner": 0}, "correct": false},
		map[string]any{"turns": []any{map[string]any{"output": "A: 7", "key": k("7"), "correct": true}, map[string]any{"output": "A: 7", "key": k("7"), "correct": true}},
			"vote": map[string]any{"key": "7", "winner": 0}, "correct": true},
	}})
	calls := []callView{{Identity: "r1/a1"}, {Identity: "r0/a0"}}
	calls[0].ID, calls[1].ID = 41, 40
	v := debateView(detail, calls)
	if v == nil {
		t.Fatal("no grid")
	}
	if agents := v["Agents"].([]string); len(agents) != 2 || agents[0] != "agent 1" || agents[1] != "agent 2 · qwen" {
		t.Errorf("columns %q", agents)
	}
	rows := v["Rounds"].([]debateRow)
	if len(rows) != 2 || len(rows[0].Cells) != 2 {
		t.Fatalf("grid %d rounds", len(rows))
	}
	if c := rows[0].Cells[1]; c.KeyText != "" || c.Winner || c.CallID != 0 {
		t.Errorf("an abstaining agent's cell %+v", c)
	}
	if c := rows[0].Cells[0]; c.KeyText != "5" || !c.Winner || c.CallID != 40 {
		t.Errorf("round 1 agent 1 %+v", c)
	}
	if c := rows[1].Cells[1]; !c.Winner || c.CallID != 41 || !c.Correct || rows[1].Majority != "7" || !rows[1].Correct {
		t.Errorf("round 2 %+v", rows[1])
	}
	if _, judged := v["Judged"]; judged {
		t.Error("a majority debate shows a judge's answer")
	}
	var withJudge map[string]any
	_ = json.Unmarshal(detail, &withJudge)
	withJudge["judged"] = "Answer: 7"
	detail, _ = json.Marshal(withJudge)
	if v := debateView(detail, nil); v["Judged"] != "Answer: 7" {
		t.Errorf("judged %v", v["Judged"])
	}
	for _, bad := range []string{``, `{}`, `{"agents":2}`, `garbage`, `{"agents":0,"rounds":[{}]}`} {
		if debateView(json.RawMessage(bad), nil) != nil {
			t.Errorf("a grid from %q", bad)
		}
	}
}
