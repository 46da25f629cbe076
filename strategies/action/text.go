// Package action reads the action an agent's reply asks for: ReAct's
// text protocol (Thought/Action lines, ParseText), its JSON protocol (one
// object a turn, ParseJSON) and tool calls written as XML tags
// (ParseXML), and τ-bench's text agents' JSON action (ParseEpisode).
// Model output is hostile: every parser bounds its work and answers an
// error, never a panic. It imports only the standard library.
package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Action is one action as a model wrote it in ReAct's text or JSON
// protocol, before it is matched to a tool.
type Action struct {
	Thought string
	Name    string          // the action's name as written ("Search", "finish")
	Input   string          // the argument text: "Paris", "4, 5"
	Args    json.RawMessage // a JSON object given as the input (JSON protocol); nil otherwise
}

// MaxParse bounds how much of a reply the parsers read; the rest is
// ignored.
const MaxParse = 64 << 10

// errNoAction is returned when a reply has no action at all.
var errNoAction = errors.New(`no "Action:" line found`)

// actionLabel matches an action label after leading decoration: "Action:",
// "Action 3:", "**Action**:", "ACTION 2 :".
var actionLabel = regexp.MustCompile(`(?i)^action\s*\d*\s*[*_]*\s*:`)

// thoughtLabel matches a thought label: "Thought:", "Thought 2:".
var thoughtLabel = regexp.MustCompile(`(?i)^thought\s*\d*\s*[*_]*\s*:`)

// bareAction matches a line that is an action without a label:
// "Search[Paris]", "finish [yes]".
var bareAction = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_-]*\s*\[`)

// lineDecor is trimmed from the start of a line before looking for labels.
const lineDecor = " \t*_#>-`"

// ParseText reads a reply in ReAct's text protocol:
//
//	Thought: I need to search Paris.
//	Action: Search[Paris]
//
// It is lenient the way models need: labels in any case, numbered
// ("Action 2:") or decorated ("**Action:**"); the action written
// Search[x], Search [x], search(x), Search: x or Search x; a missing
// closing bracket (the rest of the line is the argument, or, if the line
// ends at "[", the text up to a closing bracket on a later line); nested
// balanced brackets inside the argument; prose after the action, and any
// hallucinated Observation after it, ignored. Without an Action label, the
// first line that starts like "Search[" is the action. The thought is the
// text of the Thought line(s) before the action (or, without a label, the
// text before it). It never panics; a reply without an action is an error.
func ParseText(text string) (Action, error) {
	text = Clip(text, MaxParse)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	at, body := -1, ""
	for i, l := range lines {
		s := strings.TrimLeft(l, lineDecor)
		if loc := actionLabel.FindStringIndex(s); loc != nil {
			at, body = i, s[loc[1]:]
			break
		}
	}
	if at < 0 {
		for i, l := range lines {
			s := strings.TrimLeft(l, lineDecor)
			if bareAction.MatchString(s) && thoughtLabel.FindStringIndex(s) == nil {
				at, body = i, s
				break
			}
		}
	}
	if at < 0 {
		return Action{Thought: thoughtOf(lines)}, errNoAction
	}
	a := Action{Thought: thoughtOf(lines[:at])}
	rest := ""
	if at+1 < len(lines) {
		rest = strings.Join(lines[at+1:], "\n")
	}
	name, input, err := parseActionBody(body, rest)
	if err != nil {
		return a, err
	}
	a.Name, a.Input = name, input
	return a, nil
}

// thoughtOf returns the text after the last Thought label and the lines
// following it, or, without a label, all the text.
func thoughtOf(lines []string) string {
	start := -1
	for i, l := range lines {
		if thoughtLabel.MatchString(strings.TrimLeft(l, lineDecor)) {
			start = i
		}
	}
	if start < 0 {
		return strings.TrimSpace(strings.Join(lines, "\n"))
	}
	first := strings.TrimLeft(lines[start], lineDecor)
	first = first[thoughtLabel.FindStringIndex(first)[1]:]
	parts := append([]string{first}, lines[start+1:]...)
	return strings.Trim(strings.TrimSpace(strings.Join(parts, "\n")), "*_ ")
}

// parseActionBody reads "Search[Paris] and prose" into name and input; rest
// is the text after the action's line, where an argument left open at the
// end of the line may continue.
func parseActionBody(body, rest string) (name, input string, err error) {
	s := strings.TrimSpace(body)
	s = strings.TrimLeft(s, "*_`\"' ")
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		// A hyphen inside a name: MCP tools are named get-sum.
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' && i > 0) {
			break
		}
		i += w
	}
	name = s[:i]
	if name == "" {
		if s == "" {
			return "", "", errors.New("the Action line is empty")
		}
		return "", "", fmt.Errorf("no action name in %q", Clip(s, 80))
	}
	s = strings.TrimLeft(s[i:], " \t*_`")
	switch {
	case strings.HasPrefix(s, "["):
		return name, strings.TrimSpace(bracketed(s[1:], rest, '[', ']')), nil
	case strings.HasPrefix(s, "("):
		return name, strings.TrimSpace(bracketed(s[1:], rest, '(', ')')), nil
	case strings.HasPrefix(s, ":"):
		input = s[1:]
	default:
		input = s
	}
	// "**Action:** search Paris**": decoration closing the line.
	return name, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(input), "`*_")), nil
}

// bracketed returns the text up to the close that balances an open already
// consumed. An argument not closed on its line runs to the end of the line;
// if the line has nothing after the open, the argument may continue in rest
// up to a balancing close.
func bracketed(line, rest string, open, close byte) string {
	if j := matchClose(line, open, close, 1); j >= 0 {
		return line[:j]
	}
	if strings.TrimSpace(line) != "" || rest == "" {
		return line
	}
	if j := matchClose(rest, open, close, 1); j >= 0 {
		return rest[:j]
	}
	for l := range strings.Lines(rest) {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// matchClose returns the index of the close that brings depth to zero, or
// -1.
func matchClose(s string, open, close byte, depth int) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// Clip cuts s to at most n bytes at a rune boundary and makes it valid
// UTF-8.
func Clip(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// CapText is Clip with a marker saying how much was cut.
func CapText(s string, n int) string {
	if len(s) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return Clip(s, n) + fmt.Sprintf(" … [%d bytes cut]", len(s)-len(Clip(s, n)))
}

// maxJSONStarts bounds how many '{' positions ParseJSON tries.
const maxJSONStarts = 32

// jsonKeys are the accepted spellings of the JSON protocol's fields.
var jsonKeys = map[string][]string{
	"thought": {"thought", "thoughts", "reasoning", "reason"},
	"action":  {"action", "tool", "name", "action_name"},
	"input":   {"input", "action_input", "args", "arguments", "parameters", "argument"},
}

// ParseJSON reads a reply in ReAct's JSON protocol, one object
// {"thought": .., "action": .., "input": ..}. It is lenient: the object may
// sit in a Markdown code fence or among prose (the first '{' that starts a
// valid object wins; text after it is ignored); keys are matched in any
// case and common synonyms ("action_input", "args", "tool") are accepted;
// the input may be a string, a number, an array (read as "a, b") or an
// object (kept as Args); an action written "Search[Paris]" with no input is
// read as in the text protocol. It never panics; malformed JSON is an error
// whose text says what was wrong.
func ParseJSON(text string) (Action, error) {
	text = Clip(text, MaxParse)
	if fenced, ok := fenceBody(text); ok {
		text = fenced
	}
	var obj map[string]json.RawMessage
	var firstErr error
	start := 0
	for tries := 0; tries < maxJSONStarts; tries++ {
		i := strings.IndexByte(text[start:], '{')
		if i < 0 {
			break
		}
		start += i
		dec := json.NewDecoder(strings.NewReader(text[start:]))
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err == nil {
			obj = m
			break
		} else if firstErr == nil {
			firstErr = err
		}
		start++
	}
	if obj == nil {
		if firstErr != nil {
			return Action{}, fmt.Errorf("malformed JSON: %s", Clip(firstErr.Error(), 200))
		}
		return Action{}, errors.New("no JSON object found")
	}
	field := func(name string) (json.RawMessage, bool) {
		for _, k := range jsonKeys[name] {
			if v, ok := obj[k]; ok {
				return v, true
			}
		}
		for k, v := range obj {
			for _, want := range jsonKeys[name] {
				if strings.EqualFold(strings.TrimSpace(k), want) {
					return v, true
				}
			}
		}
		return nil, false
	}
	var a Action
	if raw, ok := field("thought"); ok {
		a.Thought = strings.TrimSpace(scalarText(raw))
	}
	raw, ok := field("action")
	if !ok {
		return a, errors.New(`the object has no "action"`)
	}
	var name string
	if json.Unmarshal(raw, &name) != nil || strings.TrimSpace(name) == "" {
		return a, errors.New(`"action" must be a non-empty string`)
	}
	name = strings.TrimSpace(name)
	in, hasInput := field("input")
	if hasInput && strings.TrimSpace(string(in)) != "null" {
		trimmed := strings.TrimSpace(string(in))
		switch {
		case strings.HasPrefix(trimmed, "{"):
			a.Args = json.RawMessage(trimmed)
		case strings.HasPrefix(trimmed, "["):
			var items []json.RawMessage
			if json.Unmarshal(in, &items) == nil {
				parts := make([]string, len(items))
				for i, it := range items {
					parts[i] = scalarText(it)
				}
				a.Input = strings.Join(parts, ", ")
			}
		default:
			a.Input = scalarText(in)
		}
	} else if strings.ContainsAny(name, "[(") {
		n, input, err := parseActionBody(name, "")
		if err != nil {
			return a, err
		}
		a.Name, a.Input = n, input
		return a, nil
	}
	a.Name = name
	return a, nil
}

// scalarText is a JSON string's value, or the JSON text of anything else.
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// fenceBody returns the contents of the first Markdown code fence that
// holds a '{'.
func fenceBody(text string) (string, bool) {
	rest := text
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			return "", false
		}
		rest = rest[i+3:]
		// Skip the info string ("json") up to the end of the line.
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return "", false
		}
		full := rest[nl+1:]
		body := full
		end := strings.Index(full, "```")
		if end >= 0 {
			body = full[:end]
		}
		if strings.Contains(body, "{") {
			return body, true
		}
		if end < 0 {
			return "", false
		}
		rest = full[end+3:]
	}
}
