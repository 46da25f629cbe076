package hotpotqa

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func instance(t *testing.T, row int) tasks.Instance {
	t.Helper()
	all, err := NewTask().Instances()
	if err != nil {
		t.Fatal(err)
	}
	return all[row]
}

func TestInstances(t *testing.T) {
	all, err := NewTask().Instances()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 100 {
		t.Fatalf("%d instances", len(all))
	}
	in := all[0]
	q := in.Data.(Question)
	if in.Index != 0 || in.Key != q.ID || in.Input != q.Question || in.Gold != "Gesellschaft mit beschränkter Haftung" {
		t.Errorf("instance 0: %+v", in)
	}
	sel := tasks.Select(all, tasks.Range{Start: 10, End: 13})
	if len(sel) != 3 || sel[0].Index != 10 {
		t.Errorf("range 10:13 selected %d rows", len(sel))
	}
}

func TestScore(t *testing.T) {
	gold := func(g string) tasks.Instance { return tasks.Instance{Gold: g} }
	cases := []struct {
		name, gold, output string
		answer             string
		em                 bool
		f1                 float64
	}{
		{"answer line", "Paris", "Thought: it is Paris.\nAnswer: Paris", "Paris", true, 1},
		{"finish action", "Paris", "Action: Finish[Paris]", "Paris", true, 1},
		{"yes/no case and period", "yes", "Answer: Yes.", "Yes", true, 1},
		{"yes vs no", "no", "Answer: yes", "yes", false, 0},
		{"yes vs longer", "yes", "Answer: yes, it is", "yes, it is", false, 0},
		{"punctuation", "Bath, Maine", "Answer: Bath Maine", "Bath Maine", true, 1},
		{"articles", "Oklahoma Sooners", "Answer: the Oklahoma Sooners", "the Oklahoma Sooners", true, 1},
		// pred: teen titans go (3), gold: teen titans (2): p 2/3, r 1, f1 0.8.
		{"partial", "Teen Titans", "Answer: Teen Titans Go!", "Teen Titans Go!", false, 0.8},
		{"unicode exact", "Gesellschaft mit beschränkter Haftung", "Answer: GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG", "GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG", true, 1},
		// beschrankter != beschränkter: 3 of 4 tokens.
		{"unicode accent", "Gesellschaft mit beschränkter Haftung", "Answer: Gesellschaft mit beschrankter Haftung", "Gesellschaft mit beschrankter Haftung", false, 0.75},
		{"en dash kept", "1947–91", "Answer: 1947-91", "1947-91", false, 0},
		{"bare one-line answer", "Copenhagen", "Copenhagen.", "Copenhagen", true, 1},
		{"quoted bare answer", "Copenhagen", `"Copenhagen"`, "Copenhagen", true, 1},
		{"no answer in prose", "Paris", "I think\nit is somewhere in France.", "", false, 0},
		{"empty", "Paris", "", "", false, 0},
	}
	task := NewTask()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := task.Score(gold(c.gold), c.output)
			if sc.Answer != c.answer || sc.Correct != c.em || !near(sc.Metrics["f1"], c.f1) || sc.Metrics["em"] != b2f(c.em) {
				t.Errorf("Score = %+v, want answer %q em %v f1 %v", sc, c.answer, c.em, c.f1)
			}
			if _, ok := sc.Metrics["em"]; !ok {
				t.Error("no em metric")
			}
			if !c.em && sc.Reason == "" {
				t.Error("no reason for a wrong answer")
			}
		})
	}
	// Gold comes from the instance's question when Gold is empty.
	q := instance(t, 0).Data.(Question)
	if sc := task.Score(tasks.Instance{Data: q}, "Answer: "+q.Answer); !sc.Correct {
		t.Errorf("gold from Data: %+v", sc)
	}
}

func TestScoreRecord(t *testing.T) {
	task := NewTask()
	q := instance(t, 0).Data.(Question)
	cases := []struct {
		name string
		rec  string
		em   bool
		f1   float64
		err  string
	}{
		{name: "question, gold, prediction", rec: `{"question": "Who?", "gold": "The Beatles", "prediction": "Beatles"}`, em: true, f1: 1},
		{name: "prediction is taken as is", rec: `{"question": "Who?", "gold": "Paris", "prediction": "Answer: Paris"}`, em: false, f1: 2.0 / 3},
		{name: "bundled id", rec: `{"id": "` + q.ID + `", "prediction": "gesellschaft mit beschrankter haftung"}`, em: false, f1: 0.75},
		{name: "bundled question text, odd spacing", rec: `{"question": "  ` + strings.ReplaceAll(q.Question, " ", "  ") + `", "prediction": "` + q.Answer + `"}`, em: true, f1: 1},
		{name: "gold wins over id", rec: `{"id": "` + q.ID + `", "gold": "x", "prediction": "x"}`, em: true, f1: 1},
		{name: "output is extracted", rec: `{"gold": "no", "output": "Thought: they differ.\nAnswer: No"}`, em: true, f1: 1},
		{name: "empty prediction", rec: `{"gold": "Paris", "prediction": ""}`, em: false, f1: 0},
		{name: "yes/no", rec: `{"gold": "no", "prediction": "yes"}`, em: false, f1: 0},
		{name: "unknown id", rec: `{"id": "nope", "prediction": "x"}`, err: "not a bundled question"},
		{name: "unknown question", rec: `{"question": "What is this?", "prediction": "x"}`, err: "not bundled"},
		{name: "no gold", rec: `{"prediction": "x"}`, err: `want "gold"`},
		{name: "no prediction", rec: `{"gold": "x"}`, err: `"prediction"`},
		{name: "prediction not text", rec: `{"gold": "x", "prediction": 3}`, err: `"prediction" must be text`},
		{name: "gold not text", rec: `{"gold": 3, "prediction": "3"}`, err: `"gold" must be text`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rec map[string]any
			if err := json.Unmarshal([]byte(c.rec), &rec); err != nil {
				t.Fatal(err)
			}
			sc, err := task.ScoreRecord(rec)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Correct != c.em || sc.Metrics["em"] != b2f(c.em) || !near(sc.Metrics["f1"], c.f1) {
				t.Errorf("ScoreRecord = %+v, want em %v f1 %v", sc, c.em, c.f1)
			}
		})
	}
}

func TestAnswerKey(t *testing.T) {
	task := NewTask()
	if keys := task.VoteKeys(); len(keys) != 1 || keys[0] != "answer" {
		t.Fatalf("VoteKeys = %v", keys)
	}
	cases := []struct {
		output, key string
		want        string
		ok          bool
	}{
		{"Answer: The Beatles.", "answer", "beatles", true},
		{"Finish[the  BEATLES]", "answer", "beatles", true},
		{"Answer: the", "answer", "", false},
		{"no answer here\nat all", "answer", "", false},
		{"Answer: Paris", "line", "", false},
	}
	for _, c := range cases {
		got, ok := task.AnswerKey(tasks.Instance{}, c.output, c.key)
		if got != c.want || ok != c.ok {
			t.Errorf("AnswerKey(%q, %s) = %q, %v; want %q, %v", c.output, c.key, got, ok, c.want, c.ok)
		}
	}
}

func TestRenderContext(t *testing.T) {
	task := NewTask()
	in := instance(t, 0)
	q := in.Data.(Question)
	if modes := task.Contexts(); len(modes) != 4 || modes[0] != "gold" {
		t.Fatalf("Contexts = %v", modes)
	}
	gold, err := task.RenderContext(in, "gold")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := task.RenderContext(in, "distractor")
	none, _ := task.RenderContext(in, "none")
	if none != "" {
		t.Errorf("none rendered %q", none)
	}
	for _, p := range q.Context {
		line := p.Title + ": " + strings.TrimSpace(p.Text())
		inGold := false
		for _, g := range q.Gold() {
			inGold = inGold || g.Title == p.Title
		}
		if strings.Contains(gold, line) != inGold {
			t.Errorf("gold context and paragraph %q: shown %v, gold %v", p.Title, !inGold, inGold)
		}
		if !strings.Contains(all, line) {
			t.Errorf("distractor context lacks %q", p.Title)
		}
	}
	if n := strings.Count(all, "\n") + 1; n != 10 {
		t.Errorf("distractor context has %d lines", n)
	}
	if _, err := task.RenderContext(in, "everything"); err == nil {
		t.Error("unknown mode accepted")
	}
	if _, err := task.RenderContext(tasks.Instance{Input: "q"}, "gold"); err == nil {
		t.Error("instance without a question accepted")
	}
}

func callTool(t *testing.T, tools []tasks.Tool, name, args string) tasks.ToolResult {
	t.Helper()
	for _, tool := range tools {
		if tool.Name == name {
			res, err := tool.Call(context.Background(), json.RawMessage(args))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tasks.ToolResult{}
}

func TestTools(t *testing.T) {
	task := NewTask()
	in := instance(t, 0)
	tools, err := task.Tools(in)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if !json.Valid(tool.Schema()) {
			t.Errorf("%s: schema %s", tool.Name, tool.Schema())
		}
	}
	if strings.Join(names, ",") != "search,lookup,finish" || !tools[2].Final || tools[0].Final {
		t.Fatalf("tools %v", names)
	}
	steps := []struct {
		tool, args string
		obs        string // prefix or substring
		final      bool
		refused    bool
	}{
		{"lookup", `{"keyword": "media"}`, ObsNoPage, false, false},
		{"search", `{"entity": "viva media"}`, "VIVA Media GmbH (until 2004", false, false},
		{"lookup", `{"keyword": "2004"}`, "(Result 1 / 2)", false, false},
		{"lookup", `{"keyword": "2004"}`, "(Result 2 / 2)", false, false},
		{"search", `{"entity": "Nowhere Land"}`, "Could not find Nowhere Land. Similar: [", false, false},
		{"search", `{}`, `Invalid arguments for search: missing "entity"`, false, true},
		{"search", `{"entity": ""}`, ObsEmptyEntity, false, false},
		{"finish", `{"answer": "  "}`, ObsEmptyAnswer, false, true},
		{"finish", `{"answer": "GmbH\n(Gesellschaft)"}`, "Episode finished.", true, false},
	}
	for i, s := range steps {
		res := callTool(t, tools, s.tool, s.args)
		if !strings.Contains(res.Observation, s.obs) || res.Final != s.final || res.Refused != s.refused {
			t.Errorf("step %d %s %s: %+v", i, s.tool, s.args, res)
		}
		if res.Final && res.Output != "Answer: GmbH (Gesellschaft)" {
			t.Errorf("finish output %q", res.Output)
		}
	}
	// A fresh set starts a fresh docstore.
	tools2, _ := task.Tools(in)
	if res := callTool(t, tools2, "lookup", `{"keyword": "2004"}`); res.Observation != ObsNoPage {
		t.Errorf("second trajectory shares the docstore: %q", res.Observation)
	}
	if _, err := task.Tools(tasks.Instance{Input: "x"}); err == nil {
		t.Error("instance without a question accepted")
	}
}

type fakeStore struct{ searched []string }

func (f *fakeStore) Search(_ context.Context, e string) (string, error) {
	f.searched = append(f.searched, e)
	return "page " + e, nil
}
func (f *fakeStore) Lookup(context.Context, string) (string, error) { return "", nil }

func TestToolsUseTheDocstoreFactory(t *testing.T) {
	fs := &fakeStore{}
	task := &Task{NewDocstore: func(Question) Docstore { return fs }}
	tools, err := task.Tools(instance(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if res := callTool(t, tools, "search", `{"entity": "Wallace"}`); res.Observation != "page Wallace" || len(fs.searched) != 1 {
		t.Errorf("search went elsewhere: %+v", res)
	}
}

func TestFindQuestion(t *testing.T) {
	qs, _ := Questions()
	for _, q := range qs {
		got, ok := FindQuestion("  " + strings.Join(strings.Fields(q.Question), "\t ") + " ")
		if !ok || got.ID != q.ID {
			t.Fatalf("FindQuestion(%q) = %v, %v", q.Question, got.ID, ok)
		}
	}
	if _, ok := FindQuestion("Who is the king of the moon?"); ok {
		t.Error("found a question that is not bundled")
	}
}

// TestSupportingContext: the Reflexion reference's CoT context has one
// paragraph per supporting fact, in the facts' order, text as stored
// (untrimmed, no title), a blank line between; a paragraph holding two
// facts appears twice. The bundled question on Jonny Craig and Pete
// Doherty has two facts in each of its two paragraphs.
func TestSupportingContext(t *testing.T) {
	task := NewTask()
	all, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	var in tasks.Instance
	for _, x := range all {
		if strings.HasPrefix(x.Input, "Which of Jonny Craig and Pete Doherty") {
			in = x
		}
	}
	q, ok := in.Data.(Question)
	if !ok {
		t.Fatal("the Jonny Craig question is not bundled")
	}
	got, err := task.RenderContext(in, ContextSupporting)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(got, "\n\n")
	if len(parts) != len(q.SupportingFacts) || len(parts) != 4 {
		t.Fatalf("%d paragraphs for %d supporting facts: %q", len(parts), len(q.SupportingFacts), got)
	}
	for i, sf := range q.SupportingFacts {
		p, ok := paragraph(q, sf.Title)
		if !ok || parts[i] != strings.Join(p.Sentences, "") {
			t.Errorf("paragraph %d is not %q's text: %q", i, sf.Title, parts[i])
		}
	}
	if parts[0] != parts[1] || parts[2] != parts[3] || parts[0] == parts[2] {
		t.Errorf("want each of the two paragraphs twice, in fact order: %q", got)
	}
	if strings.Contains(got, q.SupportingFacts[0].Title+": ") {
		t.Errorf("titles shown: %q", got)
	}
}
