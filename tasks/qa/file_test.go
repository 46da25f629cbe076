package qa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadJSONL(t *testing.T) {
	path := write(t, "mixed.jsonl", "\xef\xbb\xbf"+`{"id": 1, "question": "How many legs has a spider?", "answer": 8}

{"id": "b", "question": " Who wrote it? ", "answer": ["Ann Lee", "A. Lee"], "context": ["Ann Lee wrote the book.", "It sold well."]}
{"id": "c", "question": "Which?", "answer": "blue", "choices": ["red", "blue"], "context": [{"title": "Sky", "text": "The sky is blue."}, ["Grass", ["Grass ", "is green."]], "Plain text."]}
`)
	d, err := LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 3 || d.Info.Rows != 3 || d.Info.Name != "mixed.jsonl" || !strings.HasPrefix(d.Info.SHA256, "sha256:") {
		t.Fatalf("info %+v rows %d", d.Info, len(d.Rows))
	}
	r := d.Rows
	if r[0].ID != "1" || r[0].Gold() != "8" || r[0].Line != 1 {
		t.Errorf("row 0: %+v", r[0])
	}
	if r[1].Question != "Who wrote it?" || len(r[1].Answers) != 2 || len(r[1].Context) != 2 || r[1].Line != 3 {
		t.Errorf("row 1: %+v", r[1])
	}
	want := []Paragraph{{"Sky", "The sky is blue."}, {"Grass", "Grass is green."}, {"", "Plain text."}}
	if len(r[2].Context) != 3 || r[2].Context[0] != want[0] || r[2].Context[1] != want[1] || r[2].Context[2] != want[2] {
		t.Errorf("row 2 context: %+v", r[2].Context)
	}
	if r[2].Input() != "Which?\nA. red\nB. blue" {
		t.Errorf("input %q", r[2].Input())
	}
}

func TestLoadCSVWithSpec(t *testing.T) {
	data := write(t, "mc.csv", "uid,prompt,A,B,C,gold,notes\n"+
		"x1,\"Largest planet, by mass?\",Mars,Jupiter,Venus,B,\"multi\nline\"\n"+
		"x2,Smallest?,Mercury,Earth,,Mercury,\n")
	spec := write(t, "spec.yaml", "name: planets\nfields: {question: prompt, answer: gold, id: uid, choices: [A, B, C]}\nscorer: choice\nsteps: 2\n")
	d, err := LoadFile(data, spec)
	if err != nil {
		t.Fatal(err)
	}
	if d.Info.Name != "planets" || d.Info.SpecSHA256 == "" || !strings.Contains(d.Info.SpecText, "scorer: choice") {
		t.Errorf("info %+v", d.Info)
	}
	if len(d.Rows) != 2 || d.Rows[0].Question != "Largest planet, by mass?" || len(d.Rows[0].Choices) != 3 || len(d.Rows[1].Choices) != 2 {
		t.Fatalf("rows %+v", d.Rows)
	}
	if d.Rows[1].Line != 4 {
		t.Errorf("row 2 starts on line %d, want 4 (the first row spans two)", d.Rows[1].Line)
	}
	task, err := NewFileTask(d, "")
	if err != nil {
		t.Fatal(err)
	}
	if task.Name() != "file:planets@"+d.Info.Short() || tasks.RuleName(task) != "file/choice" {
		t.Errorf("name %s rule %s", task.Name(), tasks.RuleName(task))
	}
	if ts := task.(tasks.ThoughtSpace); ts.Steps() != 2 {
		t.Errorf("steps %d", ts.Steps())
	}
	insts, _ := task.Instances()
	if sc := task.Score(insts[1], "Answer: A"); !sc.Correct {
		t.Errorf("Mercury is choice A: %+v", sc)
	}
}

func TestTextContext(t *testing.T) {
	ps, err := paragraphs("First paragraph,\nstill first.\n\n  \nSecond.\n")
	if err != nil || len(ps) != 2 || ps[0].Text != "First paragraph,\nstill first." || ps[1].Text != "Second." {
		t.Errorf("paragraphs: %+v %v", ps, err)
	}
}

func TestCSVChoicesColumn(t *testing.T) {
	rows, err := ParseData("c.csv", FormatCSV, []byte("question,answer,choices\nQ1,b,a | b | c\nQ2,y,\"[\"\"x\"\", \"\"y\"\"]\"\n"), Fields{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[0].Choices) != 3 || rows[0].Choices[1] != "b" || len(rows[1].Choices) != 2 || rows[1].Choices[1] != "y" {
		t.Errorf("choices %q %q", rows[0].Choices, rows[1].Choices)
	}
}

// TestBadData checks that every malformed file gives one line naming the
// file, the line and the fix.
func TestBadData(t *testing.T) {
	for _, tc := range []struct {
		name, format, text string
		want               []string
	}{
		{"empty.jsonl", FormatJSONL, "", []string{"empty.jsonl:", "no rows", "write one question per line"}},
		{"blank.jsonl", FormatJSONL, "\n  \n", []string{"no rows"}},
		{"noq.jsonl", FormatJSONL, `{"question": "a", "answer": "b"}` + "\n" + `{"answer": "b"}`, []string{"noq.jsonl:2:", `no "question" field`, "fields: {question: NAME}"}},
		{"noans.jsonl", FormatJSONL, `{"question": "a"}`, []string{"noans.jsonl:1:", `no "answer" field`, "gold answer"}},
		{"emptyq.jsonl", FormatJSONL, `{"question": "  ", "answer": "b"}`, []string{":1:", "is empty"}},
		{"json.jsonl", FormatJSONL, `{"question": "a", "answer": "b"}` + "\n" + `{"question": "a", answer: b}`, []string{"json.jsonl:2:", "not a JSON object", "one object per line"}},
		{"array.jsonl", FormatJSONL, `["a", "b"]`, []string{":1:", "a list, not an object"}},
		{"two.jsonl", FormatJSONL, `{"question": "a", "answer": "b"} {"question": "c"}`, []string{":1:", "more than one JSON value"}},
		{"mixed.jsonl", FormatJSONL, `{"question": "a", "answer": "b"}` + "\n\n" + `{"question": "c", "answer": ["d"]}` + "\n" + `{"question": "e", "answer": {"x": 1}}`,
			[]string{"mixed.jsonl:4:", `"answer" is an object here but a text on line 1`, "same type on every row"}},
		{"mixedctx.jsonl", FormatJSONL, `{"question": "a", "answer": "b", "context": "c"}` + "\n" + `{"question": "c", "answer": "d", "context": {"e": 1}}`,
			[]string{"mixedctx.jsonl:2:", `"context" is an object here but a text on line 1`}},
		{"qtype.jsonl", FormatJSONL, `{"question": ["a"], "answer": "b"}`, []string{":1:", `"question" must be text`}},
		{"choices.jsonl", FormatJSONL, `{"question": "a", "answer": "b", "choices": "b"}`, []string{":1:", "must be a list of choices"}},
		{"onechoice.jsonl", FormatJSONL, `{"question": "a", "answer": "b", "choices": ["b"]}`, []string{":1:", "only one choice"}},
		{"dup.jsonl", FormatJSONL, `{"id": "x", "question": "a", "answer": "b"}` + "\n" + `{"id": "x", "question": "c", "answer": "d"}`, []string{"dup.jsonl:2:", `id "x" is also on line 1`}},
		{"ctx.jsonl", FormatJSONL, `{"question": "a", "answer": "b", "context": [true]}`, []string{":1:", `"context": item 1`}},
		{"quote.csv", FormatCSV, "question,answer\n\"unclosed,b\n", []string{"quote.csv:2:", "bad CSV", "quote cells"}},
		{"count.csv", FormatCSV, "question,answer\na,b,c\n", []string{"count.csv:2:", "bad CSV", "as many cells as the header"}},
		{"header.csv", FormatCSV, "q,a\nx,y\n", []string{"header.csv:2:", `no "question" field`}},
		{"headeronly.csv", FormatCSV, "question,answer\n", []string{"no rows"}},
	} {
		_, err := ParseData(tc.name, tc.format, []byte(tc.text), Fields{})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error spans lines: %q", tc.name, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", tc.name, msg, w)
			}
		}
	}
}

func TestBadTask(t *testing.T) {
	path := write(t, "d.jsonl", `{"question": "a", "answer": "Paris"}`+"\n"+`{"question": "b", "answer": "(x"}`)
	d, err := LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	for scorer, want := range map[string]string{
		"numeric": "d.jsonl:1: answer \"Paris\" has no number",
		"regex":   "d.jsonl:2: answer \"(x\" is not an RE2 regular expression",
		"choice":  "d.jsonl:1: no choices",
		"bleu":    `unknown scorer "bleu"`,
	} {
		if _, err := NewFileTask(d, scorer); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--scorer %s: %v, want %q", scorer, err, want)
		}
	}
}

func TestBadSpec(t *testing.T) {
	for text, want := range map[string]string{
		"scorrer: exact\n":                 `field scorrer not found (known keys:`,
		"fields: {questoin: q}\n":          `field questoin not found under fields`,
		"scorer: bleu\n":                   `unknown scorer "bleu"`,
		"format: xml\n":                    `format "xml": want jsonl or csv`,
		"steps: 99\n":                      "steps 99: want 1 to 20",
		"normalize: stem\nscorer: exact\n": "unknown normalisation",
		"fields: [a\n":                     "spec.yaml:",
	} {
		_, err := ParseSpec("spec.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("spec %q: %v, want one line with %q", text, err, want)
		}
	}
	if s, err := ParseSpec("empty.yaml", nil); err != nil || s.Scorer != "" {
		t.Errorf("an empty spec is all defaults: %+v %v", s, err)
	}
}

func TestLoadFileErrors(t *testing.T) {
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.jsonl"), ""); err == nil || !strings.Contains(err.Error(), "data file") {
		t.Errorf("missing file: %v", err)
	}
	p := write(t, "data.txt", `{"question": "a", "answer": "b"}`)
	if _, err := LoadFile(p, ""); err == nil || !strings.Contains(err.Error(), "name the file .jsonl or .csv") {
		t.Errorf("unknown extension: %v", err)
	}
	spec := write(t, "s.yaml", "format: jsonl\nprompts: mine\n")
	d, err := LoadFile(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	if d.PromptDir() != filepath.Join(filepath.Dir(spec), "mine") {
		t.Errorf("prompts folder %q is not relative to the spec", d.PromptDir())
	}
}

func FuzzParseData(f *testing.F) {
	f.Add(`{"question": "a", "answer": "b", "context": [["T", ["s1", "s2"]]], "choices": ["x", "b"]}`, true)
	f.Add("question,answer,choices\n\"q, 1\",b,a|b\n", false)
	f.Add(`{"question": 1e999, "answer": [null]}`, true)
	f.Add("\xef\xbb\xbfquestion\n\"", false)
	f.Fuzz(func(t *testing.T, text string, jsonl bool) {
		format := FormatCSV
		if jsonl {
			format = FormatJSONL
		}
		rows, err := ParseData("fuzz", format, []byte(text), Fields{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		for _, r := range rows {
			if r.Question == "" || len(r.Answers) == 0 || r.Answers[0] == "" || len(r.Choices) == 1 || len(r.Choices) > maxChoices {
				t.Fatalf("row accepted: %+v", r)
			}
		}
	})
}
