package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// What --think does with a thinking block at the start of the content.
const (
	ThinkSplit = "split" // move it into the choice's Reasoning (the default)
	ThinkKeep  = "keep"  // leave the content as the server sent it
)

// ThinkModes lists them for flags.
var ThinkModes = []string{ThinkSplit, ThinkKeep}

// ThinkTags are the markers of an inline thinking block.
type ThinkTags struct{ Open, Close string }

// DefaultThinkTags are DeepSeek-R1's and Qwen3's.
var DefaultThinkTags = ThinkTags{Open: "<think>", Close: "</think>"}

// String gives the tags in the form ParseThinkTags reads.
func (t ThinkTags) String() string { return t.Open + "," + t.Close }

// ParseThinkTags reads --think-tags: "" for <think>…</think>, a NAME for
// <NAME>…</NAME>, or OPEN,CLOSE for any pair of markers.
func ParseThinkTags(s string) (ThinkTags, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultThinkTags, nil
	}
	if open, close, ok := strings.Cut(s, ","); ok {
		t := ThinkTags{Open: strings.TrimSpace(open), Close: strings.TrimSpace(close)}
		if t.Open == "" || t.Close == "" || t.Open == t.Close {
			return ThinkTags{}, fmt.Errorf("think tags %q: want OPEN,CLOSE, two different non-empty markers", s)
		}
		return t, nil
	}
	if strings.ContainsAny(s, "<>/ \t\n") {
		return ThinkTags{}, fmt.Errorf("think tags %q: want a tag NAME (for <NAME>…</NAME>) or OPEN,CLOSE", s)
	}
	return ThinkTags{Open: "<" + s + ">", Close: "</" + s + ">"}, nil
}

// SplitThinking separates a leading thinking block from an answer:
//
//   - content starting (after white space) with the open tag: the text up to
//     the close tag is the thinking, the text after it (leading white space
//     removed) the answer;
//   - an open tag never closed (output cut at max_tokens while thinking):
//     everything is thinking and the answer is empty, so that no parser
//     reads thoughts the model had not finished;
//   - a close tag with no open tag before it (chat templates that open the
//     block in the prompt, as DeepSeek-R1's does): the text before the close
//     tag is the thinking.
//
// found is false when content has no block; answer is then content.
func SplitThinking(content string, t ThinkTags) (answer, thinking string, found bool) {
	lead := strings.TrimLeft(content, " \t\r\n")
	if strings.HasPrefix(lead, t.Open) {
		rest := lead[len(t.Open):]
		i := strings.Index(rest, t.Close)
		if i < 0 {
			return "", strings.TrimSpace(rest), true
		}
		return strings.TrimLeft(rest[i+len(t.Close):], " \t\r\n"), strings.TrimSpace(rest[:i]), true
	}
	i := strings.Index(content, t.Close)
	if i < 0 || strings.Contains(content[:i], t.Open) {
		return content, "", false
	}
	return strings.TrimLeft(content[i+len(t.Close):], " \t\r\n"), strings.TrimSpace(content[:i]), true
}

// Think handles thinking blocks in the content of every choice: with
// ThinkSplit it moves them into the choice's Reasoning (after any reasoning
// the server returned in a field), so parsers read only the answer; with
// ThinkKeep it changes nothing. Usage is left as the server reported it.
func Think(mode string, tags ThinkTags) (Middleware, error) {
	switch mode {
	case ThinkKeep:
		return func(next Sampler) Sampler { return next }, nil
	case ThinkSplit, "":
	default:
		return nil, fmt.Errorf("think mode %q: want one of %s", mode, strings.Join(ThinkModes, ", "))
	}
	if tags.Open == "" || tags.Close == "" {
		return nil, errors.New("think tags: open and close markers are required")
	}
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			resp, err := next.Sample(ctx, req)
			if err != nil {
				return resp, err
			}
			// The response may be shared (a cache hit handed to several
			// callers): change a copy.
			choices := make([]Choice, len(resp.Choices))
			for i, c := range resp.Choices {
				if answer, thinking, ok := SplitThinking(c.Content, tags); ok {
					c.Content = answer
					c.Reasoning = strings.TrimSpace(strings.Join([]string{c.Reasoning, thinking}, "\n"))
				}
				choices[i] = c
			}
			resp.Choices = choices
			return resp, nil
		})
	}, nil
}
