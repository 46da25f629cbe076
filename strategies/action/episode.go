package action

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ParseEpisode reads the action of τ-bench's text agents (its act and
// react protocols): the text after the reply's last "Action:", as one JSON
// object {"name", "arguments"} with object arguments. Text that is not
// JSON is no tool call: τ-bench's agents say it to the user as it stands,
// so it comes back as Input with Args nil (a tool call always has Args).
// Python's json.loads also reads NaN and Infinity, which Go's decoder
// refuses: such an action is said, a known difference. JSON that is not an
// object, or lacks "name" or "arguments", is an error where the
// reference's assertion fails. Thought is the text before the first
// "Action:" without a leading "Thought:". Its work is linear in the reply
// (two searches, two JSON decodes), which it reads whole, as the reference
// does.
func ParseEpisode(reply string) (Action, error) {
	var act Action
	text := reply
	if i := strings.LastIndex(reply, "Action:"); i >= 0 {
		text = reply[i+len("Action:"):]
		act.Thought = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reply[:strings.Index(reply, "Action:")]), "Thought:"))
	}
	text = strings.TrimSpace(text)
	var raw any
	if json.Unmarshal([]byte(text), &raw) != nil {
		act.Input = text
		return act, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return act, fmt.Errorf("the action is JSON but not an object: %s", Clip(text, 200))
	}
	var parsed struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal([]byte(text), &parsed) // an object: it decodes
	_, hasName := obj["name"]
	_, hasArgs := obj["arguments"]
	if !hasName || !hasArgs {
		return act, fmt.Errorf(`the action lacks "name" or "arguments": %s`, Clip(text, 200))
	}
	if json.Unmarshal(parsed.Name, &act.Name) != nil {
		return act, fmt.Errorf("the action's name is not a string: %s", Clip(string(parsed.Name), 200))
	}
	if _, ok := obj["arguments"].(map[string]any); !ok {
		return act, fmt.Errorf("the action's arguments are not an object: %s", Clip(string(parsed.Arguments), 200))
	}
	act.Args = parsed.Arguments
	return act, nil
}
