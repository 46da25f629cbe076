package game24

import (
	"math/big"
	"strings"
	"sync"
)

// moveCache memoises, per ordered state, the moves and which of them keep
// 24 reachable: the simulator's "thinking" would otherwise dominate the
// cost of a simulated completion. A nil cache computes every time.
type moveCache struct {
	mu sync.Mutex
	m  map[string]options
}

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
	o := options{all: Moves(state)}
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
