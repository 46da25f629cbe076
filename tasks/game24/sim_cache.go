package game24

import (
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// moveCache memoises, per ordered state, the moves and which of them keep
// 24 reachable: the simulator's "thinking" would otherwise dominate the
// cost of a simulated completion. A nil cache computes every time.
type moveCache struct {
	mu sync.Mutex
	m  map[string]options
}

// options are a state's moves in the simulator's stable order of
// preference (sim.Rank), all of them and the good ones.
type options struct {
	all, good []Move
}

// maxCachedStates bounds the cache; past it, states are computed afresh.
const maxCachedStates = 1 << 18

func newMoveCache() *moveCache { return &moveCache{m: map[string]options{}} }

func stateKey(state []*big.Rat) string {
	var b strings.Builder
	for _, r := range state {
		b.WriteString(r.RatString())
		b.WriteByte(' ')
	}
	return b.String()
}

// options returns the moves from state (in Moves order) and the good ones.
// Callers must not modify the returned slices.
func (c *moveCache) options(state []*big.Rat) options {
	var key string
	if c != nil {
		key = stateKey(state)
		c.mu.Lock()
		o, ok := c.m[key]
		c.mu.Unlock()
		if ok {
			return o
		}
	}
	o := options{all: ranked(state, Moves(state))}
	for _, m := range o.all {
		if Solvable(m.Left) {
			o.good = append(o.good, m)
		}
	}
	if c != nil {
		c.mu.Lock()
		if len(c.m) < maxCachedStates {
			c.m[key] = o
		}
		c.mu.Unlock()
	}
	return o
}

// ranked orders moves by the simulator's preference in this state.
func ranked(state []*big.Rat, moves []Move) []Move {
	labels := make([]string, len(moves))
	for i, m := range moves {
		labels[i] = fmt.Sprintf("%s%c%s", m.A.RatString(), m.Op, m.B.RatString())
	}
	out := make([]Move, len(moves))
	for r, i := range sim.Rank(FormatState(state), labels) {
		out[r] = moves[i]
	}
	return out
}
