package code

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/tasks"
)

// TestReferenceAlarm: under the reference rule a problem that never ends
// is stopped by the executor's own 10 s alarm, as an ordinary exception
// (TimeoutError): the run goes on in the same namespace, and the next
// problem sees what the earlier ones defined. A longer alarm would leave
// it to the sandbox's limit, which ends the shared run; a shorter one
// would fail slow but honest programs. Takes 10 s.
func TestReferenceAlarm(t *testing.T) {
	t.Parallel() // it mostly sleeps
	task, _ := NewMBPP().(tasks.RuleChooser).WithRule(RuleReference)
	b := bound(t, task)
	recs := []map[string]any{
		{"name": "mbpp_234_volume_cube", "solution": "import time\nSHARED = 3\ndef volume_cube(l: int) -> int:\n    while True:\n        time.sleep(0.5)\n"},
		{"name": "mbpp_89_closest_num", "solution": "def closest_num(N: int) -> int:\n    return N - SHARED + 2\n"},
	}
	start := time.Now()
	scores, err := b.ScoreRecords(context.Background(), recs, 1)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if scores[0].Correct || !strings.HasPrefix(scores[0].Reason, "TimeoutError") {
		t.Errorf("the endless problem: %+v, want a failure by TimeoutError", scores[0])
	}
	if !scores[1].Correct {
		t.Errorf("the problem after it, in the same namespace: %+v", scores[1])
	}
	if took < 9500*time.Millisecond || took > 25*time.Second {
		t.Errorf("scored in %v, want the alarm's 10 s", took)
	}
}
