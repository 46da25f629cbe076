package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// `bench score --task game24 --rule paper` reproduces every reward of the
// ToT paper's 4100 published outputs (puzzles 900-919), and names its rule.
func TestScorePaperRulePublishedRewards(t *testing.T) {
	t.Parallel()
	in, err := os.ReadFile("../tasks/game24/testdata/published_outputs_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := LookupTask("game24")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule     string
		disagree int
	}{{"paper", 0}, {"strict", 2}} { // strict's two: answers with no Answer: line (tasks/game24/check_test.go)
		task, err := TaskWithRule(ts, c.rule)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		sum, err := ScoreLines(task, bytes.NewReader(in), &out, ScoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.N != 4100 || sum.Rule != "game24/"+c.rule {
			t.Fatalf("rule %s: scored %d records under %q, want 4100 under game24/%s", c.rule, sum.N, sum.Rule, c.rule)
		}
		disagree := 0
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var rec struct {
				Reward  *int  `json:"reward"`
				Correct *bool `json:"correct"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Reward == nil { // the summary line
				continue
			}
			if *rec.Correct != (*rec.Reward == 1) {
				disagree++
			}
		}
		if disagree != c.disagree {
			t.Errorf("rule %s disagrees with %d published rewards, want %d", c.rule, disagree, c.disagree)
		}
	}
}
