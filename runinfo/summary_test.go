package runinfo

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fakeCatalog knows one task, "t", whose default rule is t/plain and whose
// rule "forge" is forgeable; it records what OpenTask was asked.
type fakeCatalog struct{ opened *[3]string }

func (fakeCatalog) TaskRule(task, rule string) (string, bool) {
	switch {
	case task != "t":
		return "", false
	case rule == "":
		return "t/plain: exact match", true
	case rule == "forge":
		return "t/forge: FORGEABLE: the program checks itself", true
	}
	return "", false
}

func (fakeCatalog) RuleForgeable(d string) bool { return strings.Contains(d, "FORGEABLE:") }

func (fakeCatalog) ParamSummary(strategy string, params json.RawMessage) string {
	return strategy + " " + string(params)
}

func (c fakeCatalog) OpenTask(task, spec, rule string) (Task, error) {
	*c.opened = [3]string{task, spec, rule}
	return nil, errors.New("not opened")
}

// TestRunRuleAsked: a run's rule and its forgeability come from its spec,
// and from the catalog only for what the spec lacks: the task's default
// rule's name when neither the spec nor the configuration names a rule,
// the configured rule's forgeability when the spec records no rule.
func TestRunRuleAsked(t *testing.T) {
	c := fakeCatalog{opened: new([3]string)}
	for _, tc := range []struct {
		spec      string
		rule      string
		forgeable bool
	}{
		{`{"rule":"t/forge: FORGEABLE: x","config":{"task":"t"}}`, "t/forge", true},
		{`{"rule":"other/r: plain","config":{"task":"nosuch"}}`, "other/r", false},
		{`{"config":{"task":"t"}}`, "t/plain", false},
		{`{"config":{"task":"t","rule":"forge"}}`, "", true},
		{`{"config":{"task":"t","rule":"refused"}}`, "", false},
		{`{"config":{"task":"nosuch"}}`, "", false},
		{`not json`, "", false},
	} {
		rule, forgeable := RunRule(c, []byte(tc.spec))
		if rule != tc.rule || forgeable != tc.forgeable {
			t.Errorf("%s: rule %q forgeable %v, want %q %v", tc.spec, rule, forgeable, tc.rule, tc.forgeable)
		}
	}
}

// TestRecordedTaskOpensWhatTheRunRead: a file task is opened from the data
// file and task spec the run read (its dataset), a bundled task by name,
// each with the configured rule.
func TestRecordedTaskOpensWhatTheRunRead(t *testing.T) {
	c := fakeCatalog{opened: new([3]string)}
	for _, tc := range []struct {
		spec string
		want [3]string
	}{
		{`{"config":{"task":"file:rel.jsonl","task_spec":"rel.yaml","rule":"em"},"dataset":{"path":"/abs/rel.jsonl","spec":"/abs/rel.yaml"}}`,
			[3]string{"file:/abs/rel.jsonl", "/abs/rel.yaml", "em"}},
		{`{"config":{"task":"gsm8k","rule":"numeric"},"dataset":{"path":"/ignored"}}`, [3]string{"gsm8k", "", "numeric"}},
		{`{"config":{"task":"file:rel.jsonl"}}`, [3]string{"file:rel.jsonl", "", ""}},
	} {
		if _, err := RecordedTask(c, []byte(tc.spec)); err == nil {
			t.Fatalf("%s: the catalog's error was lost", tc.spec)
		}
		if *c.opened != tc.want {
			t.Errorf("%s: opened %q, want %q", tc.spec, *c.opened, tc.want)
		}
	}
	if _, err := RecordedTask(c, []byte(`{`)); err == nil || !strings.Contains(err.Error(), "unreadable run spec") {
		t.Errorf("garbage spec: %v", err)
	}
}
