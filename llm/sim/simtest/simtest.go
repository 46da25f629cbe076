// Package simtest holds the properties every simulated responder's answer
// has, for the responders' tests and fuzz targets.
package simtest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm"
)

// CheckChoice fails t unless two answers to the same prompt and seed are
// the same, and an answer given is valid UTF-8, says something (text or a
// tool call) and names its tools with JSON arguments.
func CheckChoice(t testing.TB, c1 llm.Choice, ok1 bool, c2 llm.Choice, ok2 bool) {
	t.Helper()
	if ok1 != ok2 || !reflect.DeepEqual(c1, c2) {
		t.Fatalf("the same prompt and seed answered twice differently:\n%+v (%v)\n%+v (%v)", c1, ok1, c2, ok2)
	}
	if !ok1 {
		return
	}
	if !utf8.ValidString(c1.Content) {
		t.Fatalf("answer is not valid UTF-8: %q", c1.Content)
	}
	if strings.TrimSpace(c1.Content) == "" && len(c1.ToolCalls) == 0 {
		t.Fatalf("an answer with neither text nor a tool call: %+v", c1)
	}
	for _, tc := range c1.ToolCalls {
		if tc.Name == "" || !json.Valid([]byte(tc.Arguments)) {
			t.Fatalf("a tool call without a name or with arguments that are not JSON: %+v", tc)
		}
	}
}
