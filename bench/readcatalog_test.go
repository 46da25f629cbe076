package bench

import (
	"maps"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

// labeledTask is a test task whose instances carry a level and a subject.
type labeledTask struct{ tasks.Task }

func (labeledTask) LabelKeys() []string { return []string{"level", "subject"} }
func (labeledTask) Labels(in tasks.Instance) map[string]string {
	s, _ := in.Data.(string)
	level, subject, ok := strings.Cut(s, "/")
	if !ok {
		return nil // an item without labels is left out of a split table
	}
	return map[string]string{"level": level, "subject": subject}
}

// TestRecordedTaskLabels: the read side's task gives each item's label
// under a key by index, leaving out items without one, and no labels for
// a task that has none.
func TestRecordedTaskLabels(t *testing.T) {
	insts := map[int]tasks.Instance{3: {Index: 3, Data: "1/algebra"}, 7: {Index: 7, Data: "5/geometry"}, 9: {Index: 9}}
	rt := recordedTask{task: labeledTask{}, insts: insts}
	if got := rt.LabelKeys(); len(got) != 2 || got[0] != "level" {
		t.Errorf("label keys %q", got)
	}
	if got, want := rt.Labels("subject"), map[int]string{3: "algebra", 7: "geometry"}; !maps.Equal(got, want) {
		t.Errorf("subjects %v, want %v", got, want)
	}
	if got := rt.Labels("source"); len(got) != 0 {
		t.Errorf("an unknown key's labels %v", got)
	}
	plain := recordedTask{task: unlabeled{}, insts: insts}
	if plain.LabelKeys() != nil || plain.Labels("level") != nil {
		t.Error("a task without labels gave some")
	}
}

type unlabeled struct{ tasks.Task }

// TestCatalogTaskRule: a bundled task's default rule, a rule it chooses,
// one it refuses and an unknown task.
func TestCatalogTaskRule(t *testing.T) {
	var c Catalog
	if d, ok := c.TaskRule("humaneval", ""); !ok || !strings.HasPrefix(d, "humaneval/isolated") || c.RuleForgeable(d) {
		t.Errorf("humaneval's default rule %q %v", d, ok)
	}
	if d, ok := c.TaskRule("humaneval", "reference"); !ok || !c.RuleForgeable(d) {
		t.Errorf("humaneval's reference rule %q %v: want forgeable", d, ok)
	}
	if _, ok := c.TaskRule("humaneval", "no-such-rule"); ok {
		t.Error("a refused rule is ok")
	}
	if _, ok := c.TaskRule("nosuch", ""); ok {
		t.Error("an unknown task is ok")
	}
}
