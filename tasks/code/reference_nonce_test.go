package code

import (
	"context"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
)

// stdinLog records what each execution was given on standard input and
// answers as a process that died before any verdict.
type stdinLog struct{ stdin []string }

func (l *stdinLog) Execute(_ context.Context, _ string, p sandbox.Program) (sandbox.Result, error) {
	l.stdin = append(l.stdin, p.Stdin)
	return sandbox.Result{Status: sandbox.Crash}, nil
}

// TestReferenceMarkerRepeats: the reference rule's verdict marker is a
// function of what it runs, so a rerun records the same executions (the
// identity of runs, bench's TestEverySampleIsASample), and differs with
// the programs.
func TestReferenceMarkerRepeats(t *testing.T) {
	items := []refItem{{code: "x = 1\n"}, {code: "y = 2\n"}}
	var a, b, c stdinLog
	for _, run := range []struct {
		log   *stdinLog
		items []refItem
	}{{&a, items}, {&b, items}, {&c, []refItem{{code: "x = 3\n"}, {code: "y = 2\n"}}}} {
		if _, err := runReference(context.Background(), run.log, "hidden", run.items); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.stdin) != 2 || a.stdin[0] == a.stdin[1] {
		t.Fatalf("markers %q: want one per part, each its own", a.stdin)
	}
	if !reflect.DeepEqual(a.stdin, b.stdin) {
		t.Errorf("a rerun's markers %q, first %q", b.stdin, a.stdin)
	}
	if c.stdin[0] == a.stdin[0] {
		t.Errorf("other programs, same marker %q", c.stdin[0])
	}
}
