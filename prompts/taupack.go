package prompts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The τ-bench pack (sierra-research/tau-bench, either the commit of the
// logged GPT-4o run or today's: these files are the same at both). Its
// prompts are f-strings and expressions in code, not constants, so the
// pack is composed from the code it reads, and each piece of code it
// reads is checked to be the one this importer knows (a different shape
// is an error, never a silently different prompt):
//
//   - tau/user_llm, tau/user_react: build_system_prompt of
//     LLMUserSimulationEnv and ReactUserSimulationEnv (user.py): the
//     f-string around {instruction_display}, which is
//     ("\n\nInstruction: " + instruction + "\n") when an instruction is
//     given, else "": {{if .Instruction}}...{{end}}.
//   - tau/user_verify, tau/user_reflect: verify()'s and reflect()'s
//     prompt f-strings, {transcript} and {response} as {{.Transcript}}
//     and {{.Response}}; the transcript's own f-string and join (built by
//     package tasks/tau/user) are checked.
//   - tau/user_opening: the agent's greeting the users' reset() puts first.
//   - tau/react_act, tau/react_react: ChatReActAgent's prompt, wiki +
//     "\n#Available tools\n" + json.dumps(tools_info) + ACT_INSTRUCTION or
//     REACT_INSTRUCTION (chat_react_agent.py), the instructions rendered
//     as Python renders them with types.py's RESPOND_ACTION_NAME and
//     RESPOND_ACTION_FIELD_NAME (so the example reads "name": respond,
//     unquoted).
//   - tau/react_tools: the tool-calling agent's system turn, the wiki as
//     it stands (tool_calling_agent.py), and the few-shot agent's
//     f"{self.wiki}\n\n{few_shots}" (few_shot_agent.py): the examples
//     after the separator when there are any. The examples themselves
//     ("Example {i+1}:\n{display}" joined by "\n\n") are the task's; that
//     code is checked.
//
// The xml protocol has no reference prompt: tau/react_xml stays ours.
const (
	tauUserFile     = "tau_bench/envs/user.py"
	tauReActFile    = "tau_bench/agents/chat_react_agent.py"
	tauFewShotFile  = "tau_bench/agents/few_shot_agent.py"
	tauToolCallFile = "tau_bench/agents/tool_calling_agent.py"
	tauTypesFile    = "tau_bench/types.py"
)

// importTau builds the τ-bench pack from a checkout.
func importTau(src string) (map[string]string, error) {
	files := map[string][]pyStmt{}
	var types string
	for _, f := range []string{tauUserFile, tauReActFile, tauFewShotFile, tauToolCallFile, tauTypesFile} {
		path := filepath.Join(src, filepath.FromSlash(f))
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (is %s a checkout of sierra-research/tau-bench?)", path, errNotFound(err), src)
		}
		if files[f], err = pyStatements(string(b)); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if f == tauTypesFile {
			types = string(b)
		}
	}
	fail := func(file string, err error) error {
		return fmt.Errorf("%s: %w: not the tau-bench code this importer reads", filepath.Join(src, filepath.FromSlash(file)), err)
	}
	out := map[string]string{}
	user := files[tauUserFile]
	for _, u := range []struct{ class, out string }{{"LLMUserSimulationEnv", "tau/user_llm"}, {"ReactUserSimulationEnv", "tau/user_react"}} {
		t, err := tauSystemPrompt(inScope(user, u.class))
		if err != nil {
			return nil, fail(tauUserFile, fmt.Errorf("%s: %w", u.class, err))
		}
		out[u.out] = t
	}
	for _, c := range []struct{ fn, out string }{{"verify", "tau/user_verify"}, {"reflect", "tau/user_reflect"}} {
		t, err := tauCheckPrompt(inScope(user, c.fn))
		if err != nil {
			return nil, fail(tauUserFile, fmt.Errorf("%s(): %w", c.fn, err))
		}
		out[c.out] = t
	}
	opening, err := tauOpening(user)
	if err != nil {
		return nil, fail(tauUserFile, err)
	}
	out["tau/user_opening"] = PyTextToTemplate(opening)

	consts, err := PyStrings(types)
	if err != nil {
		return nil, fail(tauTypesFile, err)
	}
	if err := tauReAct(files[tauReActFile], consts, out); err != nil {
		return nil, fail(tauReActFile, err)
	}
	if err := tauToolCalling(files[tauToolCallFile]); err != nil {
		return nil, fail(tauToolCallFile, err)
	}
	if out["tau/react_tools"], err = tauFewShot(inScope(files[tauFewShotFile], "FewShotToolCallingAgent")); err != nil {
		return nil, fail(tauFewShotFile, fmt.Errorf("FewShotToolCallingAgent: %w", err))
	}
	return out, nil
}

// tauSystemPrompt is a user class's build_system_prompt as a template.
func tauSystemPrompt(class []pyStmt) (string, error) {
	var pre, post string
	found := 0
	for _, st := range class {
		if !st.assigns("instruction_display") {
			continue
		}
		// ("\n\nInstruction: " + instruction + "\n") if instruction is not None else ""
		var ts []pyTok
		for _, t := range st.toks[2:] {
			if t.kind != tkOp || t.text != "(" && t.text != ")" {
				ts = append(ts, t)
			}
		}
		if !matchToks(ts, "S", "+", "instruction", "+", "S", "if", "instruction", "is", "not", "None", "else", "S") || ts[11].text != "" {
			return "", errors.New(`instruction_display is not (TEXT + instruction + TEXT) if instruction is not None else ""`)
		}
		pre, post = ts[0].text, ts[4].text
		found++
	}
	if found != 1 {
		return "", fmt.Errorf("%d assignments of instruction_display, want 1", found)
	}
	lits, fields, err := theFString(class, "instruction_display")
	if err != nil {
		return "", err
	}
	block := "{{if .Instruction}}" + goLiteral(pre, true) + "{{.Instruction}}" + goLiteral(post, true) + "{{end}}"
	return fstringTemplate(lits, fields, map[string]string{"instruction_display": block}), nil
}

// tauCheckPrompt is verify()'s or reflect()'s prompt as a template, after
// checking that its transcript is "\n".join of
// f"{map_role_label(message['role'])}: {message['content']}".
func tauCheckPrompt(fn []pyStmt) (string, error) {
	lits, fields, err := theFString(fn, "map_role_label(message['role'])", "message['content']")
	if err != nil || !slices.Equal(fields, []string{"map_role_label(message['role'])", "message['content']"}) || !slices.Equal(lits, []string{"", ": ", ""}) {
		return "", errors.New(`a transcript line is not f"{map_role_label(message['role'])}: {message['content']}"`)
	}
	joins := 0
	for _, st := range fn {
		if st.assigns("transcript") {
			ts := st.toks[2:]
			if len(ts) > 0 && ts[0].text == "(" {
				ts = ts[1:]
			}
			if !matchToks(ts[:min(len(ts), 4)], "S", ".", "join", "(") || ts[0].text != "\n" {
				return "", errors.New(`the transcript is not "\n".join(...)`)
			}
			joins++
		}
	}
	if joins != 1 {
		return "", fmt.Errorf("%d assignments of transcript, want 1", joins)
	}
	if lits, fields, err = theFString(fn, "transcript", "response"); err != nil {
		return "", err
	}
	return fstringTemplate(lits, fields, map[string]string{"transcript": "{{.Transcript}}", "response": "{{.Response}}"}), nil
}

// tauOpening is the greeting every user's reset() puts after the system
// turn, {"role": "user", "content": TEXT}: the same in each.
func tauOpening(stmts []pyStmt) (string, error) {
	var texts []string
	for _, st := range stmts {
		for i := 0; i+7 <= len(st.toks); i++ {
			if ts := st.toks[i : i+7]; matchToks(ts, "S", ":", "S", ",", "S", ":", "S") &&
				ts[0].text == "role" && ts[2].text == "user" && ts[4].text == "content" {
				texts = append(texts, ts[6].text)
			}
		}
	}
	if len(texts) == 0 {
		return "", errors.New(`no greeting {"role": "user", "content": TEXT}`)
	}
	for _, t := range texts[1:] {
		if t != texts[0] {
			return "", fmt.Errorf("the users' greetings differ: %q, %q", texts[0], t)
		}
	}
	return texts[0], nil
}

// tauReAct adds react_act and react_react: ChatReActAgent's prompt.
func tauReAct(stmts []pyStmt, consts map[string]string, out map[string]string) error {
	var sep string
	found := 0
	for _, st := range inScope(stmts, "ChatReActAgent") {
		for i := 0; i+12 <= len(st.toks); i++ {
			// wiki + TEXT + json.dumps(tools_info) + instruction
			if ts := st.toks[i : i+12]; matchToks(ts, "wiki", "+", "S", "+", "json", ".", "dumps", "(", "tools_info", ")", "+", "instruction") {
				sep = ts[2].text
				found++
			}
		}
	}
	if found != 1 {
		return fmt.Errorf("ChatReActAgent: %d prompts wiki + TEXT + json.dumps(tools_info) + instruction, want 1", found)
	}
	for _, c := range []struct{ name, out string }{{"REACT_INSTRUCTION", "tau/react_react"}, {"ACT_INSTRUCTION", "tau/react_act"}} {
		var defs []pyTok
		for _, st := range inScope(stmts, "") {
			if st.assigns(c.name) && len(st.toks) == 3 && st.toks[2].kind == tkFString {
				defs = append(defs, st.toks[2])
			}
		}
		if len(defs) != 1 {
			return fmt.Errorf("%d assignments %s = f\"\"\"...\"\"\", want 1", len(defs), c.name)
		}
		lits, fields, err := pyFString(defs[0].text)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		// Python renders a str field as the string itself.
		var b strings.Builder
		for i, f := range fields {
			v, ok := consts[f]
			if !ok {
				return fmt.Errorf("%s: field {%s} is not a string constant of %s", c.name, f, tauTypesFile)
			}
			b.WriteString(lits[i] + v)
		}
		b.WriteString(lits[len(lits)-1])
		out[c.out] = "{{.Policy}}" + goLiteral(sep, true) + "{{.ToolsJSON}}" + goLiteral(b.String(), false)
	}
	return nil
}

// tauToolCalling checks that the tool-calling agent's system turn is the
// wiki as it stands: {"role": "system", "content": self.wiki}.
func tauToolCalling(stmts []pyStmt) error {
	for _, st := range inScope(stmts, "ToolCallingAgent") {
		for i := 0; i+10 <= len(st.toks); i++ {
			if ts := st.toks[i : i+10]; matchToks(ts[:9], "S", ":", "S", ",", "S", ":", "self", ".", "wiki") &&
				ts[0].text == "role" && ts[2].text == "system" && ts[4].text == "content" && (ts[9].text == "}" || ts[9].text == ",") {
				return nil
			}
		}
	}
	return errors.New(`ToolCallingAgent: the system turn is not {"role": "system", "content": self.wiki}`)
}

// tauFewShot is react_tools: the policy, then, when there are examples,
// the few-shot agent's separator and the examples, after checking how the
// agent shows them.
func tauFewShot(class []pyStmt) (string, error) {
	lits, fields, err := theFString(class, "i+1", "display")
	if err != nil || !slices.Equal(fields, []string{"i+1", "display"}) || !slices.Equal(lits, []string{"Example ", ":\n", ""}) {
		return "", errors.New(`an example is not f"Example {i+1}:\n{display}"`)
	}
	joined := false
	for _, st := range class {
		for i, t := range st.toks {
			if t.kind == tkString && t.text == "\n\n" && matchToks(st.toks[i+1:min(len(st.toks), i+4)], ".", "join", "(") {
				joined = true
			}
		}
	}
	if !joined {
		return "", errors.New(`the examples are not "\n\n".join(...)`)
	}
	lits, fields, err = theFString(class, "self.wiki", "few_shots")
	if err != nil {
		return "", err
	}
	if !slices.Equal(fields, []string{"self.wiki", "few_shots"}) || lits[0] != "" || lits[2] != "" {
		return "", errors.New(`the system turn is not f"{self.wiki}SEPARATOR{few_shots}"`)
	}
	// The separator goes inside the condition: with no examples the system
	// turn is the wiki alone, as the tool-calling agent's.
	return "{{.Policy}}{{if .Examples}}" + goLiteral(lits[1], true) + "{{.Examples}}{{end}}", nil
}

// pyStmt is a statement of a Python file and the top-level class or
// function it is in ("" at module level).
type pyStmt struct {
	scope string
	toks  []pyTok
}

// assigns says whether the statement is NAME = ...
func (st pyStmt) assigns(name string) bool {
	return len(st.toks) >= 3 && st.toks[0].kind == tkName && st.toks[0].text == name && st.toks[1].text == "="
}

// pyStatements splits Python source into statements, each with its
// top-level scope: a statement at column 0 opens a scope if it is a class
// or def, and ends the previous one otherwise.
func pyStatements(src string) ([]pyStmt, error) {
	toks, err := pyTokens(src)
	if err != nil {
		return nil, err
	}
	var out []pyStmt
	scope, start := "", 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && toks[i].kind != tkNewline {
			continue
		}
		ts := toks[start:i]
		start = i + 1
		if len(ts) == 0 {
			continue
		}
		if ts[0].col == 0 && ts[0].kind == tkName {
			scope = ""
			if (ts[0].text == "class" || ts[0].text == "def") && len(ts) > 1 {
				scope = ts[1].text
			}
		}
		out = append(out, pyStmt{scope: scope, toks: ts})
	}
	return out, nil
}

// inScope are the statements of one top-level class or function ("":
// the module's own).
func inScope(stmts []pyStmt, scope string) []pyStmt {
	var out []pyStmt
	for _, st := range stmts {
		if st.scope == scope {
			out = append(out, st)
		}
	}
	return out
}

// matchToks says whether ts is the pattern: "S" a string literal, any
// other word a name or operator of that text.
func matchToks(ts []pyTok, pattern ...string) bool {
	if len(ts) != len(pattern) {
		return false
	}
	for i, p := range pattern {
		if p == "S" {
			if ts[i].kind != tkString {
				return false
			}
		} else if ts[i].kind == tkString || ts[i].kind == tkFString || ts[i].text != p {
			return false
		}
	}
	return true
}

// theFString returns the one f-string among stmts with a field and whose
// fields are all among fields.
func theFString(stmts []pyStmt, fields ...string) (lits, fs []string, err error) {
	n := 0
	for _, st := range stmts {
		for _, t := range st.toks {
			if t.kind != tkFString {
				continue
			}
			l, f, err := pyFString(t.text)
			if err != nil || len(f) == 0 {
				continue
			}
			ok := true
			for _, x := range f {
				ok = ok && slices.Contains(fields, x)
			}
			if ok {
				lits, fs = l, f
				n++
			}
		}
	}
	if n != 1 {
		return nil, nil, fmt.Errorf("%d f-strings with fields {%s}, want 1", n, strings.Join(fields, "}, {"))
	}
	return lits, fs, nil
}

// fstringTemplate is an f-string as a template, each field replaced by
// its action.
func fstringTemplate(lits, fields []string, actions map[string]string) string {
	var b strings.Builder
	for i, f := range fields {
		b.WriteString(goLiteral(lits[i], true) + actions[f])
	}
	b.WriteString(goLiteral(lits[len(lits)-1], false))
	return b.String()
}

// pyFString splits an f-string's text (escapes decoded, {fields} as
// written) into its literal parts, {{ and }} read as braces, and its
// fields' expressions, trimmed: len(lits) == len(fields)+1. A conversion
// (!r) or a format spec is refused.
func pyFString(s string) (lits, fields []string, err error) {
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			lit.WriteByte('{')
			i++
		case strings.HasPrefix(s[i:], "}}"):
			lit.WriteByte('}')
			i++
		case c == '}':
			return nil, nil, fmt.Errorf("single '}' at byte %d of an f-string", i)
		case c == '{':
			end, err := fieldEnd(s, i+1)
			if err != nil {
				return nil, nil, err
			}
			lits = append(lits, lit.String())
			lit.Reset()
			fields = append(fields, strings.TrimSpace(s[i+1:end]))
			i = end
		default:
			lit.WriteByte(c)
		}
	}
	return append(lits, lit.String()), fields, nil
}

// fieldEnd is the index of the '}' closing the f-string field starting at
// s[i]: brackets and quoted strings inside the expression are skipped.
func fieldEnd(s string, i int) (int, error) {
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return 0, errors.New("unterminated string in an f-string field")
			}
			i += j + 1
		case '(', '[', '{':
			depth++
		case ')', ']':
			depth--
		case '}':
			if depth == 0 {
				return i, nil
			}
			depth--
		case '!', ':':
			if depth == 0 && (c == ':' || i+1 < len(s) && s[i+1] != '=') {
				return 0, fmt.Errorf("an f-string field with a conversion or format spec at byte %d: not supported", i)
			}
		}
	}
	return 0, errors.New("unclosed '{' in an f-string")
}
