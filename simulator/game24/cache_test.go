package game24

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks/game24"
)

// The cache only saves work: a state's options are the same computed
// afresh, on first sight, when hot, and after falling out of the hot
// generations (then rebuilt from the remembered ranking).
func TestMoveCacheSameAsComputed(t *testing.T) {
	c := newMoveCache()
	var states [][]*big.Rat
	for i := range 3 * hotStates {
		states = append(states, []*big.Rat{big.NewRat(int64(i%13+1), 1), big.NewRat(int64(i/13+1), 1), big.NewRat(24, 1)})
	}
	// Each state's options computed without the cache, once: the rounds
	// below compare the cache's answers with them.
	want := make([]string, len(states))
	for i, s := range states {
		want[i] = optionsText((*moveCache)(nil).options(s))
	}
	for round := range 2 { // the second round finds every state cold again
		for i, s := range states {
			if got, w := optionsText(c.options(s)), want[i]; got != w {
				t.Fatalf("round %d state %d: cached %s, computed %s", round, i, got, w)
			}
		}
		if got, w := optionsText(c.options(states[len(states)-1])), want[len(states)-1]; got != w {
			t.Fatalf("hot state: cached %s, computed %s", got, w)
		}
	}
	if len(c.m) != len(states) || len(c.hot) > hotStates || len(c.old) > hotStates {
		t.Errorf("rankings %d (want %d), hot %d, old %d (at most %d each)", len(c.m), len(states), len(c.hot), len(c.old), hotStates)
	}
}

func optionsText(o options) string {
	var s strings.Builder
	fmt.Fprint(&s, len(o.all), len(o.good), ":")
	for _, m := range o.all {
		fmt.Fprintf(&s, " %s%c%s", m.A.RatString(), m.Op, m.B.RatString())
	}
	s.WriteString(" |")
	for _, m := range o.good {
		fmt.Fprintf(&s, " %s%c%s=%s", m.A.RatString(), m.Op, m.B.RatString(), game24.FormatState(m.Left))
	}
	return s.String()
}
