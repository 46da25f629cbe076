package tokens

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

func TestForModel(t *testing.T) {
	cases := []struct {
		model, enc  string
		exact, chat bool
	}{
		{"gpt-4", "cl100k_base", true, true},
		{"gpt-4-0613", "cl100k_base", true, true},
		{"gpt-4-turbo", "cl100k_base", true, true},
		{"gpt-3.5-turbo", "cl100k_base", true, true},
		{"gpt-4o", "o200k_base", true, true},
		{"gpt-4o-mini", "o200k_base", true, true},
		{"gpt-4.1-nano", "o200k_base", true, true},
		{"o3-mini", "o200k_base", true, true},
		{"o4-mini", "o200k_base", true, true},
		{"gpt-5-mini", "o200k_base", true, true},
		{"openai/gpt-4o", "o200k_base", true, true},
		{"text-davinci-003", "p50k_base", true, false},
		{"Qwen/Qwen3-8B", "o200k_base", false, true},
		{"sim", "o200k_base", false, true},
	}
	for _, tc := range cases {
		c, err := ForModel(tc.model)
		if err != nil {
			t.Fatal(err)
		}
		if c.Encoding() != tc.enc || c.Exact != tc.exact || c.Chat != tc.chat {
			t.Errorf("%s: %s exact=%v chat=%v; want %s %v %v", tc.model, c.Encoding(), c.Exact, c.Chat, tc.enc, tc.exact, tc.chat)
		}
	}
}

// Known encodings from tiktoken's documentation: "tiktoken is great!" is
// six tokens in cl100k_base and o200k_base; the ranks differ between them.
func TestTextKnownCounts(t *testing.T) {
	for _, model := range []string{"gpt-4", "gpt-4o"} {
		c, _ := ForModel(model)
		if n := c.Text("tiktoken is great!"); n != 6 {
			t.Errorf("%s: %d tokens, want 6", model, n)
		}
	}
	c, _ := ForModel("gpt-4")
	ids, _, _ := c.codec.Encode("China is great!")
	want := []uint{23078, 374, 2294, 0}
	if len(ids) != len(want) {
		t.Fatalf("ids %v, want %v", ids, want)
	}
	for i := range ids {
		if ids[i] != want[i] {
			t.Fatalf("ids %v, want %v", ids, want)
		}
	}
	if c.Text("") != 0 {
		t.Error("empty text has tokens")
	}
}

func TestPromptOverhead(t *testing.T) {
	c, _ := ForModel("gpt-4")
	msgs := []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "4 4 6 8"}}
	content := c.Text("Be brief.") + c.Text("4 4 6 8")
	roles := c.Text("system") + c.Text("user") // one token each in cl100k_base
	if roles != 2 {
		t.Fatalf("roles are %d tokens, want 2", roles)
	}
	if got, want := c.Prompt(msgs, nil), content+roles+2*perMessage+perReply; got != want {
		t.Errorf("Prompt = %d, want %d", got, want)
	}
	named := []llm.Message{{Role: "user", Name: "bob", Content: "hi"}}
	if got, want := c.Prompt(named, nil), c.Text("hi")+1+perMessage+c.Text("bob")+perName+perReply; got != want {
		t.Errorf("named: %d, want %d", got, want)
	}
	d, _ := ForModel("text-davinci-003")
	if got, want := d.Prompt(msgs, nil), d.Text("Be brief.")+d.Text("4 4 6 8"); got != want {
		t.Errorf("completion model: %d, want %d (no chat overhead)", got, want)
	}
}

func TestCompletion(t *testing.T) {
	c, _ := ForModel("gpt-4o")
	resp := llm.Response{Choices: []llm.Choice{{Content: "Answer: (4 + 8) * (6 - 4) = 24"}, {Content: "sure", Reasoning: "think"},
		{ToolCalls: []llm.ToolCall{{Name: "Search", Arguments: `{"q":"x"}`}}}}}
	want := c.Text(resp.Choices[0].Content) + c.Text("sure") + c.Text("think") + c.Text("Search") + c.Text(`{"q":"x"}`)
	if got := c.Completion(resp); got != want || got == 0 {
		t.Errorf("Completion = %d, want %d", got, want)
	}
}

func BenchmarkText(b *testing.B) {
	c, _ := ForModel("gpt-4")
	s := "Input: 4 4 6 8\nPossible next steps:\n4 + 4 = 8 (left: 6 8 8)\n8 / 4 = 2 (left: 2 6 8)\n"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		c.Text(s)
	}
}

// Counting line by line (memoized) gives the whole text's count, on the
// bundled prompts and on awkward inputs.
func TestTextLineSplitExact(t *testing.T) {
	texts := []string{
		"a\nb", "a\n\nb", "a \n b", "x.\n/y", "x\n/y", "end.\n", "\n\nStart", "1\n2\n3", "tab\n\tx", "é\nü\nλ",
		"Input: 4 4 6 8\nSteps:\n4 + 8 = 12 (left: 4 6 12)\n6 - 4 = 2 (left: 2 12)\n2 * 12 = 24 (left: 24)\nAnswer: (6 - 4) * (4 + 8) = 24\n",
		"  leading\nspaces  \n\n  and trailing   \n",
		"Thought 1: I need to search X.\nAction 1: Search[X]\nObservation 1: X is a thing.\n",
		"a\n'sb", "a\n b", "a.\n\n", "x\n\ty\n", "w\u00a0\nv", "q\n\u00a0r", "Observation 2: [x]\nThought 3:",
	}
	entries, _ := filepath.Glob("../../prompts/*/*.txt")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	if len(entries) == 0 {
		t.Fatal("no bundled prompts found")
	}
	for _, model := range []string{"gpt-4", "gpt-4o", "text-davinci-003"} {
		c, _ := ForModel(model)
		for _, s := range texts {
			if got, want := c.Text(s), c.encode(s); got != want {
				t.Errorf("%s: %q: line by line %d, whole %d", model, s, got, want)
			}
		}
	}
}

func FuzzTextLineSplit(f *testing.F) {
	for _, s := range []string{"a\nb", "x.\n/y", "a \n b\n\nc", "Answer: 1 + 2\n= 3"} {
		f.Add(s)
	}
	var cs []*Counter
	for _, model := range []string{"gpt-4o", "gpt-4", "text-davinci-003"} {
		c, _ := ForModel(model)
		cs = append(cs, c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range cs {
			if got, want := c.Text(s), c.encode(s); got != want {
				t.Errorf("%s: %q: line by line %d, whole %d", c.Encoding(), s, got, want)
			}
		}
	})
}
