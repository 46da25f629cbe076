package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// SampleTally is how many of an item's k independent samples were right,
// for a strategy that answers with its first sample and scores the item by
// the share right (io and cot with k > 1): the item's stored verdict is
// then its first sample's alone, and its score Right/Of, so "correct" and
// the score can point opposite ways (4/10 right with the first wrong).
type SampleTally struct{ Right, Of int }

// TallyOf reads an item's tally through its strategy's reader (strategies.
// Reading); ok is false unless the item has more than one sample and its
// strategy answers with the first (a vote's verdict is the item's own).
func TallyOf(strategy string, detail []byte) (SampleTally, bool) {
	smp, ok := reading.Of(strategy).SamplesOf(detail)
	if !ok || smp.Rule != reading.RuleFirst || len(smp.Correct) < 2 {
		return SampleTally{}, false
	}
	t := SampleTally{Of: len(smp.Correct)}
	for _, c := range smp.Correct {
		if c {
			t.Right++
		}
	}
	return t, true
}

// PartScore reports whether an item's score lies strictly between 0 and 1:
// a mean over samples or trials, or a graded score, of which a right or
// wrong verdict tells only part.
func PartScore(score float64) bool { return score > 0 && score < 1 }

// ForgeableRuns says, in one line, which of the rows' runs were scored by
// a forgeable rule and what that means (render.ForgeableNote), for tables
// without a rule column (bench compare, report --by, --by budget); ""
// when none was.
func ForgeableRuns(rows []render.Row) string {
	var ids []string
	rules := map[string]bool{}
	var names []string
	for _, r := range rows {
		if !r.RuleForgeable {
			continue
		}
		ids = append(ids, strconv.FormatInt(r.RunID, 10))
		if r.Rule != "" && !rules[r.Rule] {
			rules[r.Rule] = true
			names = append(names, r.Rule)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("runs scored by a forgeable rule: %s (%s). %s", strings.Join(ids, ", "), strings.Join(names, ", "), render.ForgeableNote)
}

// RuleOf is the scoring rule's short name a run recorded and whether the
// rule declares itself forgeable (runinfo.RunRule), for views of one run.
func RuleOf(cat runinfo.Catalog, run store.Run) (rule string, forgeable bool) {
	return runinfo.RunRule(cat, run.Spec)
}
