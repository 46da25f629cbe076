package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/reasonbench/reasonbench/events"
)

// WriteEvents prints an item's events (in the item's order) step by step,
// one line an event: model calls with role, identity, tokens, latency and
// cache; tool calls with server, tool, arguments, result, latency and
// replay; user turns; verifier scores; the verdict.
func WriteEvents(w io.Writer, evs []events.Event) error {
	var b strings.Builder
	step, first := "", true
	for _, e := range evs {
		if first || e.Step != step || e.Kind == events.Verdict {
			name := "step " + e.Step
			if e.Step == "" || e.Kind == events.Verdict {
				name = "item"
			}
			fmt.Fprintf(&b, "  %s:\n", name)
			step, first = e.Step, false
		}
		b.WriteString("    " + EventLine(e) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// EventLine describes one event in a line.
func EventLine(e events.Event) string {
	var s string
	switch e.Kind {
	case events.Model:
		s = fmt.Sprintf("model call #%d %s %s (%s): %d tokens (%d in, %d out), %.1f ms", e.CallID, e.Role, e.Call, e.Purpose,
			e.Tokens(), e.PromptTokens, e.CompletionTokens, e.LatencyMS)
		if e.Cached {
			s += ", cache hit"
		}
	case events.Tool:
		s = fmt.Sprintf("tool call %s %s %s -> %s (%.1f ms", e.Server, e.Tool, clipLine(string(e.Arguments), 200), clipLine(e.Result, 200), e.LatencyMS)
		if e.Cached {
			s += ", replayed"
		}
		s += ")"
	case events.User:
		s = "user: " + clipLine(e.Text, 300)
	case events.Verifier:
		parts := make([]string, len(e.Scores))
		for i, v := range e.Scores {
			parts[i] = fmt.Sprintf("%.3f", v)
		}
		s = fmt.Sprintf("verifier %s: scores %s", e.Call, strings.Join(parts, " "))
	case events.Verdict:
		word := "wrong"
		if e.Correct {
			word = "correct"
		}
		s = fmt.Sprintf("verdict %s, score %s", word, ftoa(e.Score))
		if e.Answer != "" {
			s += ", answer " + clipLine(e.Answer, 200)
		}
	default:
		s = e.Kind.String()
	}
	if e.Error != "" {
		s += " · error: " + clipLine(e.Error, 300)
	}
	return s
}

// clipLine keeps s to one line of at most n bytes (whole runes).
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
