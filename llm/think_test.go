package llm

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

func TestSplitThinking(t *testing.T) {
	for _, tc := range []struct {
		name, content    string
		tags             ThinkTags
		answer, thinking string
		found            bool
	}{
		{"none", "Answer: 4 * 6 = 24", DefaultThinkTags, "Answer: 4 * 6 = 24", "", false},
		{"leading block", "<think>\nAnswer: 1 + 1 = 2\n</think>\n\nAnswer: 4 * 6 = 24", DefaultThinkTags, "Answer: 4 * 6 = 24", "Answer: 1 + 1 = 2", true},
		{"white space before", "  \n<think>x</think>y", DefaultThinkTags, "y", "x", true},
		{"empty block", "<think></think>\n\nanswer", DefaultThinkTags, "answer", "", true},
		{"unclosed: all thinking", "<think>\nAction: Finish[draft]\nstill thinking", DefaultThinkTags, "", "Action: Finish[draft]\nstill thinking", true},
		{"only a close tag (template opened it)", "I draft.\nAnswer: 1\n</think>\n\nAnswer: 2", DefaultThinkTags, "Answer: 2", "I draft.\nAnswer: 1", true},
		{"block not leading is kept", "Answer: 2 <think>x</think>", DefaultThinkTags, "Answer: 2 <think>x</think>", "", false},
		{"only the first block", "<think>a</think>b<think>c</think>d", DefaultThinkTags, "b<think>c</think>d", "a", true},
		{"custom name", "<reasoning>r</reasoning> a", mustTags(t, "reasoning"), "a", "r", true},
		{"custom pair", "<|begin_of_thought|>r<|end_of_thought|>a", mustTags(t, "<|begin_of_thought|>,<|end_of_thought|>"), "a", "r", true},
		{"other tags untouched", "<think>r</think>a", mustTags(t, "reasoning"), "<think>r</think>a", "", false},
		{"empty content", "", DefaultThinkTags, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, th, ok := SplitThinking(tc.content, tc.tags)
			if a != tc.answer || th != tc.thinking || ok != tc.found {
				t.Errorf("SplitThinking(%q) = %q, %q, %v; want %q, %q, %v", tc.content, a, th, ok, tc.answer, tc.thinking, tc.found)
			}
		})
	}
}

func mustTags(t *testing.T, s string) ThinkTags {
	t.Helper()
	tags, err := ParseThinkTags(s)
	if err != nil {
		t.Fatal(err)
	}
	return tags
}

func TestParseThinkTags(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ThinkTags
		bad  bool
	}{
		{"", DefaultThinkTags, false},
		{"think", DefaultThinkTags, false},
		{"seed:think", ThinkTags{"<seed:think>", "</seed:think>"}, false},
		{"[THINK],[/THINK]", ThinkTags{"[THINK]", "[/THINK]"}, false},
		{"<think>", ThinkTags{}, true},
		{"a,", ThinkTags{}, true},
		{"x,x", ThinkTags{}, true},
		{"two words", ThinkTags{}, true},
	} {
		got, err := ParseThinkTags(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseThinkTags(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestThinkMiddleware(t *testing.T) {
	shared := Response{Choices: []Choice{
		{Content: "<think>draft</think>\n\nAnswer: 24", Reasoning: "from the field"},
		{Content: "plain"},
		{Content: "<think>cut off"},
	}}
	next := SamplerFunc(func(context.Context, Request) (Response, error) { return shared, nil })
	split, err := Think(ThinkSplit, DefaultThinkTags)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := split(next).Sample(context.Background(), Request{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Choice{
		{Content: "Answer: 24", Reasoning: "from the field\ndraft"},
		{Content: "plain"},
		{Content: "", Reasoning: "cut off"},
	}
	for i, c := range resp.Choices {
		if c.Content != want[i].Content || c.Reasoning != want[i].Reasoning {
			t.Errorf("choice %d = %+v, want %+v", i, c, want[i])
		}
	}
	if shared.Choices[0].Content != "<think>draft</think>\n\nAnswer: 24" {
		t.Error("the shared response was changed")
	}

	keep, err := Think(ThinkKeep, DefaultThinkTags)
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = keep(next).Sample(context.Background(), Request{})
	if resp.Choices[0].Content != shared.Choices[0].Content {
		t.Errorf("keep changed the content: %q", resp.Choices[0].Content)
	}
	if _, err := Think("hide", DefaultThinkTags); err == nil {
		t.Error("unknown mode accepted")
	}
}

// FuzzSplitThinking: hostile content never panics, and the split never
// invents text: answer and thinking come from the content, and a content
// without either tag is left alone.
func FuzzSplitThinking(f *testing.F) {
	for _, s := range []string{"", "<think>a</think>b", "<think>", "</think>", "a</think>b", " <think>\n</think>\n", "<think><think></think></think>", "\xff<think>\xfe"} {
		f.Add(s, "think")
	}
	f.Add("[T]x[/T]y", "[T],[/T]")
	f.Fuzz(func(t *testing.T, content, tagSpec string) {
		tags, err := ParseThinkTags(tagSpec)
		if err != nil {
			return
		}
		answer, thinking, found := SplitThinking(content, tags)
		if !found {
			if answer != content || thinking != "" {
				t.Fatalf("no block but answer %q thinking %q", answer, thinking)
			}
			if strings.HasPrefix(strings.TrimLeft(content, " \t\r\n"), tags.Open) {
				t.Fatalf("leading open tag not found in %q", content)
			}
			return
		}
		if !strings.HasSuffix(content, answer) || !strings.Contains(content, thinking) {
			t.Fatalf("split of %q invented text: answer %q thinking %q", content, answer, thinking)
		}
		if len(answer)+len(thinking) > len(content) {
			t.Fatalf("split of %q longer than the content", content)
		}
	})
}

// FuzzRejectedParam: a server's error message (hostile text) never panics
// the reader, and what it names is a field name or nothing.
func FuzzRejectedParam(f *testing.F) {
	for _, s := range []string{"Unsupported parameter: 'max_tokens' is not supported", "Unsupported value: 'temperature' does not support 0.7",
		"Only one completion choice is allowed", "", "Unsupported parameter: '", "unknown parameter \xff"} {
		f.Add(s, "", 400)
	}
	f.Add("x", "temperature", 400)
	f.Fuzz(func(t *testing.T, msg, param string, status int) {
		got := rejectedParam(&openai.Error{StatusCode: status, Message: msg, Param: param})
		if got == "" {
			return
		}
		if status < 400 {
			t.Fatalf("status %d named %q", status, got)
		}
		if got != strings.TrimSpace(param) && !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`).MatchString(got) {
			t.Fatalf("%q named %q", msg, got)
		}
	})
}
