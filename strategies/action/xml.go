package action

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// The xml protocol: a tool call written as XML tags in the reply's text,
// as coding agents write them,
//
//	<thinking>The user wants the weather.</thinking>
//	<get_weather>
//	<city>Paris</city>
//	<days>3</days>
//	</get_weather>
//
// Values are text, not escaped XML: whatever lies between <param> and
// </param> is the value, trimmed of surrounding blank lines and spaces.

// errNoXMLAction is returned when a reply holds no tool element.
var errNoXMLAction = errors.New("no tool call <tool_name>...</tool_name> found")

// thoughtTags are elements that hold the thought, not a tool call.
var thoughtTags = map[string]bool{"thinking": true, "thought": true, "reasoning": true, "think": true}

// ParseXML reads the first tool element of a reply: its name, its
// parameters' values, and the thought (a <thinking>, <thought> or
// <reasoning> element's text, else the text before the tool element).
// schema, when it knows the tool, gives the arguments' JSON schema: a
// value becomes the JSON its property's type asks for (a number, a
// boolean, an array or object written as JSON; a string as it stands);
// without one, a value that is valid JSON other than a bare word is taken
// as that JSON. It never panics; a reply without a tool element is an
// error.
func ParseXML(text string, schema func(name string) json.RawMessage) (Action, error) {
	text = Clip(text, MaxParse)
	var act Action
	pos := 0
	for {
		name, open, inner, end, ok := NextElement(text, pos)
		if !ok {
			break
		}
		if thoughtTags[strings.ToLower(name)] {
			if act.Thought == "" {
				act.Thought = strings.TrimSpace(inner)
			}
			pos = end
			continue
		}
		if act.Thought == "" {
			act.Thought = strings.TrimSpace(text[:open])
		}
		act.Name = name
		var props map[string]string
		if schema != nil {
			props = propertyTypes(schema(name))
		}
		args := map[string]json.RawMessage{}
		var order []string
		p := 0
		for {
			pn, _, value, pend, ok := NextElement(inner, p)
			if !ok {
				break
			}
			if _, dup := args[pn]; !dup {
				order = append(order, pn)
			}
			args[pn] = xmlValue(strings.Trim(value, " \t\r\n"), props[pn], props != nil)
			p = pend
		}
		act.Args = orderedObject(order, args)
		act.Input = string(act.Args)
		return act, nil
	}
	return act, errNoXMLAction
}

// NextElement finds the first element <name>inner</name> at or after pos
// whose closing tag exists: the open tag's start, the inner text and where
// the element ends. An element whose closing tag is missing is skipped.
func NextElement(s string, pos int) (name string, open int, inner string, end int, ok bool) {
	for pos < len(s) {
		i := strings.IndexByte(s[pos:], '<')
		if i < 0 {
			return "", 0, "", 0, false
		}
		open = pos + i
		j := strings.IndexByte(s[open:], '>')
		if j < 0 {
			return "", 0, "", 0, false
		}
		name = s[open+1 : open+j]
		if !XMLName(name) {
			pos = open + 1
			continue
		}
		body := open + j + 1
		k := strings.Index(s[body:], "</"+name+">")
		if k < 0 {
			pos = open + 1
			continue
		}
		return name, open, s[body : body+k], body + k + len(name) + 3, true
	}
	return "", 0, "", 0, false
}

// XMLName reports whether s is a tag name: a letter or underscore, then
// letters, digits, _, - or .; at most 100 bytes.
func XMLName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// propertyTypes reads a JSON schema's properties' types.
func propertyTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || s.Properties == nil {
		return nil
	}
	out := map[string]string{}
	for name, p := range s.Properties {
		var t string
		if json.Unmarshal(p.Type, &t) != nil {
			var ts []string
			if json.Unmarshal(p.Type, &ts) == nil && len(ts) > 0 {
				t = ts[0]
			}
		}
		out[name] = t
	}
	return out
}

// xmlValue makes a parameter's text the JSON its type asks for; text that
// does not read as that type stays a string, for the tool to refuse.
func xmlValue(v, typ string, known bool) json.RawMessage {
	str := func() json.RawMessage { return jsonString(v) }
	switch typ {
	case "string":
		return str()
	case "integer", "number":
		if _, err := strconv.ParseFloat(v, 64); err == nil && json.Valid([]byte(v)) {
			return json.RawMessage(v)
		}
		return str()
	case "boolean":
		if v == "true" || v == "false" {
			return json.RawMessage(v)
		}
		return str()
	case "array", "object":
		if json.Valid([]byte(v)) {
			return json.RawMessage(v)
		}
		return str()
	}
	if !known && v != "" && json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	return str()
}

// orderedObject writes a JSON object with its keys in order.
func orderedObject(order []string, m map[string]json.RawMessage) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(m[k])
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// jsonString is s as a JSON string, without HTML escapes (a value
// "a < b" stays as written).
func jsonString(s string) json.RawMessage {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n"))
}
