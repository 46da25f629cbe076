package qa

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

func newTask(t *testing.T, scorer string, rows ...Row) tasks.Task {
	t.Helper()
	task, err := New(Options{Name: "file:test@00000000", Kind: "file", Rows: rows, Scorer: scorer})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestTaskBasics(t *testing.T) {
	task := newTask(t, "numeric", Row{ID: "a", Question: "2+2?", Answers: []string{"4"}}, Row{Question: "3+3?", Answers: []string{"6"}})
	if _, ok := task.(*ContextTask); ok {
		t.Fatal("rows without context make a plain task")
	}
	if _, ok := task.(tasks.Toolbox); ok {
		t.Fatal("no tools without context")
	}
	insts, err := task.Instances()
	if err != nil || len(insts) != 2 || insts[0].Key != "a" || insts[1].Key != "3+3?" || insts[1].Index != 1 {
		t.Fatalf("instances %+v %v", insts, err)
	}
	if k, ok := task.AnswerKey(insts[0], "Answer: 4.0", VoteAnswer); !ok || k != "4" {
		t.Errorf("vote key %q %v", k, ok)
	}
	if _, ok := task.AnswerKey(insts[0], "no number", VoteAnswer); ok {
		t.Error("an output without a number votes")
	}
	if tasks.RuleName(task) != "file/numeric" {
		t.Errorf("rule %q", tasks.Rule(task))
	}
	rc := task.(tasks.RuleChooser)
	em, err := rc.WithRule("exact")
	if err != nil || tasks.RuleName(em) != "file/exact(lower)" {
		t.Fatalf("WithRule exact: %v %v", em, err)
	}
	if _, err := rc.WithRule("bleu"); err == nil {
		t.Error("unknown scorer accepted")
	}
}

func TestScoreRecord(t *testing.T) {
	task := newTask(t, "numeric", Row{ID: "a", Question: "How many legs has  a spider?", Answers: []string{"Eight.\n#### 8"}}).(tasks.RecordScorer)
	for _, tc := range []struct {
		rec     string
		correct bool
		err     string
	}{
		{`{"question": "How many legs has a spider?", "output": "Answer: 8"}`, true, ""},
		{`{"id": "a", "output": "Answer: 6"}`, false, ""},
		{`{"question": "Unknown?", "output": "Answer: 8", "answer": "8"}`, true, ""},
		{`{"question": "Unknown?", "output": "Answer: 8", "answer": 8}`, true, ""},
		{`{"question": "How many legs has a spider?", "prediction": "8"}`, true, ""},
		{`{"question": "Unknown?", "output": "Answer: 8"}`, false, "not among"},
		{`{"question": "How many legs has a spider?"}`, false, `want an "output"`},
		{`{"question": "How many legs has a spider?", "output": 8}`, false, `want an "output"`},
	} {
		var rec map[string]any
		if err := json.Unmarshal([]byte(tc.rec), &rec); err != nil {
			t.Fatal(err)
		}
		sc, err := task.ScoreRecord(rec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.rec, err, tc.err)
			}
			continue
		}
		if err != nil || sc.Correct != tc.correct {
			t.Errorf("%s: %+v %v, want correct=%v", tc.rec, sc, err, tc.correct)
		}
	}
}

func TestContextTask(t *testing.T) {
	task := newTask(t, "em_f1",
		Row{Question: "Where did Anna Berg open her shop?", Answers: []string{"Lindau"},
			Context: []Paragraph{{Text: "Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902."}, {Title: "Lindau", Text: "Lindau is a town on the river Amper."}}},
		Row{Question: "No context here?", Answers: []string{"yes"}})
	ct, ok := task.(*ContextTask)
	if !ok {
		t.Fatal("a row with context makes a ContextTask")
	}
	insts, _ := task.Instances()
	text, err := ct.RenderContext(insts[0], ContextGold)
	if err != nil || text != "Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902.\n\nLindau: Lindau is a town on the river Amper." {
		t.Errorf("gold context %q %v", text, err)
	}
	if text, _ := ct.RenderContext(insts[0], ContextNone); text != "" {
		t.Errorf("none shows %q", text)
	}
	if _, err := ct.RenderContext(insts[0], "distractor"); err == nil {
		t.Error("unknown mode accepted")
	}
	if wr, _ := ct.WithRule("exact"); wr.(*ContextTask) == nil {
		t.Error("WithRule drops the context capabilities")
	}

	tools, err := ct.Tools(insts[0])
	if err != nil || len(tools) != 3 {
		t.Fatalf("tools %v %v", tools, err)
	}
	if !strings.Contains(tools[0].Description, "Paragraph 1; Lindau") {
		t.Errorf("search does not list the pages: %q", tools[0].Description)
	}
	ctx := context.Background()
	call := func(i int, args string) string {
		r, err := tools[i].Call(ctx, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return r.Observation
	}
	if obs := call(0, `{"entity": "Paragraph 1"}`); !strings.HasPrefix(obs, "Anna Berg was a clockmaker.") {
		t.Errorf("search by title: %q", obs)
	}
	if obs := call(0, `{"entity": "clockmaker shop"}`); !strings.Contains(obs, "the closest page is Paragraph 1: Anna Berg") {
		t.Errorf("search by content: %q", obs)
	}
	if obs := call(1, `{"keyword": "Lindau"}`); obs != "(Result 1 / 1) She opened her first shop in Lindau in 1902." {
		t.Errorf("lookup: %q", obs)
	}
	if obs := call(0, `{"entity": "zebra"}`); !strings.HasPrefix(obs, "Could not find zebra") {
		t.Errorf("search for nothing: %q", obs)
	}
	r, _ := tools[2].Call(ctx, json.RawMessage(`{"answer": "Lindau"}`))
	if !r.Final || r.Output != "Answer: Lindau" || !ct.Score(insts[0], r.Output).Correct {
		t.Errorf("finish: %+v", r)
	}
	// A row without context gets an empty docstore, not an error.
	if _, err := ct.Tools(insts[1]); err != nil {
		t.Errorf("tools of a row without context: %v", err)
	}
}

func TestThoughtPrompts(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	task := newTask(t, "numeric", Row{Question: "Tom has 3 apples and buys 5 more. How many apples?", Answers: []string{"8"}})
	ts := task.(tasks.ThoughtSpace)
	insts, _ := task.Instances()
	p, stop, err := ts.SamplePrompt(lib, insts[0], "")
	if err != nil || len(stop) != 1 || !strings.Contains(p, "This is line 1 of at most 3") || !strings.Contains(p, "(none)") {
		t.Errorf("first sample prompt %q %v", p, err)
	}
	p, _, _ = ts.SamplePrompt(lib, insts[0], "3 + 5 = 8\nSo 8 apples.\n")
	if !strings.Contains(p, "This is line 3 of 3, the last") {
		t.Errorf("last sample prompt %q", p)
	}
	p, err = ts.VotePrompt(lib, insts[0], []string{"3 + 5 = 8", "3 × 5 = 15"})
	if err != nil || !strings.Contains(p, "Choice 2:\n3 × 5 = 15") {
		t.Errorf("vote prompt %q %v", p, err)
	}
	if i, ok := ts.ParseVote("… The best choice is 2", 2); !ok || i != 1 {
		t.Errorf("ParseVote %d %v", i, ok)
	}
	if !ts.Final("3 + 5 = 8\nAnswer: 8") || ts.Final("3 + 5 = 8") {
		t.Error("Final")
	}
	if _, err := ts.ProposePrompt(lib, insts[0], ""); err == nil || !strings.Contains(err.Error(), "generate=sample") {
		t.Errorf("propose: %v", err)
	}
}
