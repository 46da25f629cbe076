package game24

import (
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// moveCache memoises, per ordered state, the simulator's order of
// preference among the moves and which of them keep 24 reachable: ranking
// and solving would otherwise dominate the cost of a simulated completion.
// For every state it keeps indexes into Moves(state); the moves themselves,
// kilobytes of rationals a state, only for the states seen last (two
// generations of hotStates), which are those of the puzzles in flight.
// Keeping the moves of every state a 1,000-puzzle ToT run visits was most
// of the run's memory. A nil cache computes every time.
type moveCache struct {
	mu       sync.Mutex
	m        map[string]ranking
	hot, old map[string]options
}

// hotStates is the size of a generation of states kept with their moves.
const hotStates = 1 << 10

// ranking is a state's moves by index into Moves(state): all of them in
// the simulator's order of preference, and the good ones in that order.
type ranking struct {
	all, good []uint8
}

// options are a state's moves in the simulator's stable order of
// preference (sim.Rank), all of them and the good ones.
type options struct {
	all, good []game24.Move
}

// maxCachedStates bounds the cache; past it, states are computed afresh.
const maxCachedStates = 1 << 18

func newMoveCache() *moveCache { return &moveCache{m: map[string]ranking{}, hot: map[string]options{}} }

// lookup returns the state's options if it is hot, else its ranking if
// known.
func (c *moveCache) lookup(key string) (options, ranking, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.hot[key]; ok {
		return o, ranking{}, true, true
	}
	if o, ok := c.old[key]; ok {
		c.keep(key, o)
		return o, ranking{}, true, true
	}
	r, ok := c.m[key]
	return options{}, r, false, ok
}

// keep makes key hot; c.mu is held.
func (c *moveCache) keep(key string, o options) {
	if len(c.hot) >= hotStates {
		c.old, c.hot = c.hot, make(map[string]options, hotStates)
	}
	c.hot[key] = o
}

func stateKey(state []*big.Rat) string {
	var b strings.Builder
	for _, r := range state {
		b.WriteString(r.RatString())
		b.WriteByte(' ')
	}
	return b.String()
}

// options returns the moves from state in the simulator's order of
// preference and the good ones. Callers must not modify the slices.
func (c *moveCache) options(state []*big.Rat) options {
	if c == nil {
		moves := game24.Moves(state)
		return rankMoves(state, moves).apply(moves)
	}
	key := stateKey(state)
	o, r, hot, known := c.lookup(key)
	if hot {
		return o
	}
	moves := game24.Moves(state)
	if !known {
		r = rankMoves(state, moves)
	}
	o = r.apply(moves)
	c.mu.Lock()
	if !known && len(c.m) < maxCachedStates {
		c.m[key] = r
	}
	c.keep(key, o)
	c.mu.Unlock()
	return o
}

// rankMoves ranks the moves of state and finds the good ones.
func rankMoves(state []*big.Rat, moves []game24.Move) ranking {
	var r ranking
	for _, i := range rank(state, moves) {
		r.all = append(r.all, uint8(i))
		if game24.Solvable(moves[i].Left) {
			r.good = append(r.good, uint8(i))
		}
	}
	return r
}

func (r ranking) apply(moves []game24.Move) options {
	o := options{all: make([]game24.Move, len(r.all)), good: make([]game24.Move, len(r.good))}
	for k, i := range r.all {
		o.all[k] = moves[i]
	}
	for k, i := range r.good {
		o.good[k] = moves[i]
	}
	return o
}

// rank returns the indexes of moves in the simulator's order of
// preference in this state.
func rank(state []*big.Rat, moves []game24.Move) []int {
	labels := make([]string, len(moves))
	for i, m := range moves {
		labels[i] = fmt.Sprintf("%s%c%s", m.A.RatString(), m.Op, m.B.RatString())
	}
	return sim.Rank(game24.FormatState(state), labels)
}
