package hotpotqa

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
)

func TestParseVote(t *testing.T) {
	task := NewTask()
	for _, tc := range []struct {
		in   string
		n    int
		want int
		ok   bool
	}{
		{"The best choice is 2", 3, 1, true},
		{"the best choice is: 1.\nActually the best choice is 3", 3, 2, true},
		{"The best choice is 4", 3, 0, false},
		{"The best choice is 0", 3, 0, false},
		{"no vote", 3, 0, false},
		{"The best choice is 99999999999999999999", 3, 0, false},
	} {
		got, ok := task.ParseVote(tc.in, tc.n)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseVote(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseVote(f *testing.F) {
	f.Add("The best choice is 2", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		k, ok := NewTask().ParseVote(s, n)
		if ok && (k < 0 || k >= n) {
			t.Errorf("ParseVote(%q, %d) = %d", s, n, k)
		}
	})
}

func TestThoughtSpace(t *testing.T) {
	task := NewTask()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	insts, _ := task.Instances()
	inst := insts[0]
	q := inst.Data.(Question)
	if task.Final("From X: y\n") || !task.Final("From X: y\nAnswer: z\n") {
		t.Error("Final misreads states")
	}
	if _, err := task.ProposePrompt(lib, inst, ""); err == nil {
		t.Error("propose should name the fix")
	}
	if _, _, err := task.ValuePrompt(lib, inst, ""); err == nil {
		t.Error("value should name the fix")
	}
	sp, stop, err := task.SamplePrompt(lib, inst, "")
	if err != nil || len(stop) != 1 || !strings.Contains(sp, "Write the next line of the reasoning only") || !strings.Contains(sp, q.Context[0].Title) {
		t.Fatalf("sample prompt: %v %q", err, stop)
	}
	vp, err := task.VotePrompt(lib, inst, []string{"From A: a\n", "From B: b\n"})
	if err != nil || !strings.Contains(vp, "Decide which choice is most promising") || !strings.Contains(vp, "Choice 2:\nFrom B: b") {
		t.Fatalf("vote prompt: %v\n%s", err, vp)
	}
}
