// Package tokens counts the tokens of chat requests and completions with
// a model family's real BPE tokenizer (tiktoken's encodings, ranks
// embedded in the binary by github.com/tiktoken-go/tokenizer: nothing is
// downloaded at run time).
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"

	"github.com/reasonbench/reasonbench/llm"
)

// Chat format overhead as OpenAI's cookbook counts it for its chat models
// ("How to count tokens with tiktoken"): every message costs 3 tokens
// besides its role and content, a name 1 more, and every reply is primed
// with 3 (<|start|>assistant<|message|>).
const (
	perMessage = 3
	perName    = 1
	perReply   = 3
)

// Counter counts tokens for one model family.
type Counter struct {
	codec tokenizer.Codec
	// Exact is false when the model's own tokenizer is not bundled and
	// Encoding stands in for it.
	Exact bool
	// Chat is false for completion-only models (text-davinci-003): no
	// per-message overhead.
	Chat  bool
	Model string

	// cut reports whether s may be cut before s[i] without changing the
	// count: a pre-token always starts there in the encoding's pattern.
	cut func(s string, i int) bool

	mu   sync.Mutex
	memo map[string]int // tokens of a line; few-shot prompts repeat theirs
}

// maxMemo bounds the memo; past it the memo starts over.
const maxMemo = 1 << 18

// family maps model name prefixes to encodings; the first match wins, so
// longer prefixes come first.
var family = []struct {
	prefix string
	enc    tokenizer.Encoding
	chat   bool
}{
	{"gpt-4o", tokenizer.O200kBase, true},
	{"chatgpt-4o", tokenizer.O200kBase, true},
	{"gpt-4.1", tokenizer.O200kBase, true},
	{"gpt-4.5", tokenizer.O200kBase, true},
	{"gpt-5", tokenizer.O200kBase, true},
	{"o1", tokenizer.O200kBase, true},
	{"o3", tokenizer.O200kBase, true},
	{"o4", tokenizer.O200kBase, true},
	{"gpt-4", tokenizer.Cl100kBase, true}, // gpt-4, gpt-4-turbo, gpt-4-32k and snapshots
	{"gpt-3.5-turbo-instruct", tokenizer.Cl100kBase, false},
	{"gpt-3.5", tokenizer.Cl100kBase, true},
	{"text-davinci-003", tokenizer.P50kBase, false},
	{"text-davinci-002", tokenizer.P50kBase, false},
	{"code-davinci", tokenizer.P50kBase, false},
}

// ForModel returns the counter for a model: its family's tokenizer, or
// o200k_base as an approximation for models whose tokenizer is not bundled
// (open-weight models, other vendors), with Exact false.
func ForModel(model string) (*Counter, error) {
	name := strings.ToLower(model[strings.LastIndex(model, "/")+1:]) // "openai/gpt-4o" → "gpt-4o"
	enc, chat, exact := tokenizer.O200kBase, true, false
	for _, f := range family {
		if strings.HasPrefix(name, f.prefix) {
			enc, chat, exact = f.enc, f.chat, true
			break
		}
	}
	return newCounter(enc, model, exact, chat)
}

// Encoding returns the counter for a tiktoken encoding by name, e.g.
// "p50k_base": for code that counts as a particular model did, whatever
// model a run uses (the Reflexion reference counts with text-davinci-003's).
func Encoding(name string) (*Counter, error) {
	return newCounter(tokenizer.Encoding(name), name, true, false)
}

func newCounter(enc tokenizer.Encoding, model string, exact, chat bool) (*Counter, error) {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", enc, err)
	}
	cut := cutAfterLine
	if enc == tokenizer.P50kBase || enc == tokenizer.R50kBase {
		cut = cutBetweenWords
	}
	return &Counter{codec: codec, Exact: exact, Chat: chat, Model: model, cut: cut, memo: map[string]int{}}, nil
}

// cutAfterLine is exact for cl100k_base and o200k_base: there a line break
// followed by a character that is neither white space nor '/' always ends
// a pre-token (the pattern for runs of white space ending in a line break
// comes first and no other continues past one).
func cutAfterLine(s string, i int) bool {
	return s[i-1] == '\n' && !strings.ContainsRune(" \t\r\n\v\f/", rune(s[i])) && s[i] < 0x80
}

// cutBetweenWords is exact for p50k_base and r50k_base, whose pattern ends
// a run of white space before a non-space character but lets a run at the
// very end of a text take every space: a line break is a pre-token of its
// own, at the end of a piece or not, only between two non-space (ASCII)
// characters.
func cutBetweenWords(s string, i int) bool {
	return i >= 2 && s[i-1] == '\n' && asciiNonSpace(s[i-2]) && asciiNonSpace(s[i])
}

func asciiNonSpace(b byte) bool { return b < 0x80 && !strings.ContainsRune(" \t\r\n\v\f", rune(b)) }

// Encoding names the tokenizer, e.g. "cl100k_base".
func (c *Counter) Encoding() string { return c.codec.GetName() }

// Text returns the number of tokens in s. It counts s line by line, cut
// only where a pre-token always starts (see cut), with the lines' counts
// memoized: BPE never merges across pre-tokens, so the sum is exact
// (tested against whole-text counts), and few-shot prompts cost one
// encoding of their examples.
func (c *Counter) Text(s string) int {
	n := 0
	for s != "" {
		end := len(s)
		for i := 1; i < len(s); i++ {
			if c.cut(s, i) {
				end = i
				break
			}
		}
		n += c.line(s[:end])
		s = s[end:]
	}
	return n
}

func (c *Counter) line(s string) int {
	c.mu.Lock()
	n, ok := c.memo[s]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.encode(s)
	c.mu.Lock()
	if len(c.memo) >= maxMemo {
		clear(c.memo)
	}
	c.memo[s] = n
	c.mu.Unlock()
	return n
}

func (c *Counter) encode(s string) int {
	if s == "" {
		return 0
	}
	n, err := c.codec.Count(s)
	if err != nil { // the default error mode never fails; count bytes rather than nothing
		return len(s)
	}
	return n
}

// Prompt returns the prompt tokens of a request: every message's role,
// content and name with the chat overhead (for a completion model, the
// contents only). Tool definitions and tool calls are counted as the
// tokens of their JSON, an approximation: OpenAI renders them in a format
// it does not publish.
func (c *Counter) Prompt(msgs []llm.Message, tools []llm.ToolSpec) int {
	n := 0
	for _, m := range msgs {
		n += c.Text(m.Content)
		if !c.Chat {
			continue
		}
		n += perMessage + c.Text(m.Role)
		if m.Name != "" {
			n += c.Text(m.Name) + perName
		}
		for _, tc := range m.ToolCalls {
			n += c.Text(tc.Name) + c.Text(tc.Arguments)
		}
	}
	if c.Chat && len(msgs) > 0 {
		n += perReply
	}
	for _, t := range tools {
		n += c.Text(t.Name) + c.Text(t.Description) + c.Text(string(t.Parameters))
	}
	return n
}

// Completion returns the completion tokens of a response: every choice's
// content, reasoning (billed as completion tokens) and tool calls.
func (c *Counter) Completion(resp llm.Response) int {
	n := 0
	for _, ch := range resp.Choices {
		n += c.Text(ch.Content) + c.Text(ch.Reasoning)
		for _, tc := range ch.ToolCalls {
			n += c.Text(tc.Name) + c.Text(tc.Arguments)
		}
	}
	return n
}
