package game24

import (
	"fmt"
	"math/big"
	"slices"
)

// Move is one possible next step from a state: combine the entries at
// indices I and J with Op.
type Move struct {
	I, J   int      // indices in the input state of A and B (I != J; either may be larger)
	A, B   *big.Rat // the operands, in the order written: Result = A Op B
	Op     byte     // '+', '-', '*', '/'
	Result *big.Rat // the exact result
	// Left is the next state: the input state without entries I and J, in
	// their original order, followed by Result. Keeping the order lets a
	// caller track one expression per entry alongside the numbers.
	Left []*big.Rat
}

// StepLine formats the move as a step line ParseStep reads, with the
// numbers in FormatNumber form and the left numbers sorted:
// "4 * 5 = 20 (left: 6 10 20)", "8 / 3 = 8/3 (left: 8/3 9)".
func (m Move) StepLine() string {
	return fmt.Sprintf("%s %c %s = %s (left: %s)",
		FormatNumber(m.A), m.Op, FormatNumber(m.B), FormatNumber(m.Result), FormatState(m.Left))
}

// Moves lists every distinct next step from state, in a deterministic order:
// for each unordered pair of entries (i < j), a+b and a*b once, a-b, b-a,
// a/b and b/a (divisions by zero skipped). Steps with the same operands and
// operator (A, Op, B; for + and * in either order) are listed once, so
// duplicate numbers do not repeat moves. nil entries are ignored.
func Moves(state []*big.Rat) []Move {
	s := without(state, -1, -1)
	var out []Move
	seen := map[string]bool{}
	add := func(i, j int, op byte) {
		a, b := s[i], s[j]
		key := FormatNumber(a) + string(op) + FormatNumber(b)
		if (op == '+' || op == '*') && a.Cmp(b) > 0 {
			key = FormatNumber(b) + string(op) + FormatNumber(a)
		}
		if seen[key] {
			return
		}
		r, err := Arith(op, a, b)
		if err != nil {
			return
		}
		seen[key] = true
		left := without(s, i, j)
		out = append(out, Move{I: i, J: j, A: new(big.Rat).Set(a), B: new(big.Rat).Set(b),
			Op: op, Result: r, Left: append(left, new(big.Rat).Set(r))})
	}
	for i := 0; i < len(s); i++ {
		for j := i + 1; j < len(s); j++ {
			add(i, j, '+')
			add(i, j, '*')
			add(i, j, '-')
			add(j, i, '-')
			add(i, j, '/')
			add(j, i, '/')
		}
	}
	return out
}

// Solvable reports whether 24 can be reached by repeatedly combining two
// numbers of state with + - * / until one number remains, using every
// number exactly once (intermediate values may be negative or fractional;
// arithmetic is exact). A single number is solvable iff it is 24; an empty
// state is not. nil entries are ignored. It is safe for concurrent use: the
// only cache is per call. The search is exponential in len(state); it is
// meant for the game's four numbers (about 10-40µs for those).
//
// While all numerators and denominators stay below 2^31 it works on int64
// fractions; otherwise it falls back to math/big, memoising sub-states of
// three or more numbers by their FormatState key.
func Solvable(state []*big.Rat) bool {
	s := without(state, -1, -1)
	if fs, ok := toFracs(s); ok {
		if res, ok := solvableFrac(fs, map[string]bool{}); ok {
			return res
		}
	}
	return solvable(s, map[string]bool{})
}

func solvable(s []*big.Rat, memo map[string]bool) bool {
	switch len(s) {
	case 0:
		return false
	case 1:
		return s[0].Cmp(rat24) == 0
	case 2:
		return pairMakes24(s[0], s[1])
	}
	key := FormatState(s)
	if v, ok := memo[key]; ok {
		return v
	}
	res := false
	next := make([]*big.Rat, 0, len(s)-1)
	var r big.Rat
search:
	for i := 0; i < len(s); i++ {
		for j := i + 1; j < len(s); j++ {
			next = next[:0]
			for k, v := range s {
				if k != i && k != j {
					next = append(next, v)
				}
			}
			a, b := s[i], s[j]
			for c := 0; c < 6; c++ {
				if !combine(&r, c, a, b) {
					continue
				}
				if solvable(append(next, new(big.Rat).Set(&r)), memo) {
					res = true
					break search
				}
			}
		}
	}
	memo[key] = res
	return res
}

// frac is an exact fraction n/d with d > 0 and |n|, d below fracLimit, so
// that products and sums of two fit in an int64. It is reduced only when it
// would otherwise exceed the limit (gcd is the expensive part); n/d equals
// 24 iff n == 24*d either way.
type frac struct{ n, d int64 }

const fracLimit = 1 << 31

func toFracs(s []*big.Rat) ([]frac, bool) {
	out := make([]frac, len(s))
	for i, r := range s {
		n, d := r.Num(), r.Denom()
		if !n.IsInt64() || !d.IsInt64() {
			return nil, false
		}
		f, ok := mkFrac(n.Int64(), d.Int64())
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// mkFrac normalises n/d (d != 0, |n|, |d| < 2^63) and reports whether it
// fits below fracLimit, reducing it only if it would not fit otherwise.
func mkFrac(n, d int64) (frac, bool) {
	if d < 0 {
		n, d = -n, -d
	}
	if n < fracLimit && n > -fracLimit && d < fracLimit {
		return frac{n, d}, true
	}
	a, b := n, d
	if a < 0 {
		a = -a
	}
	for b != 0 {
		a, b = b, a%b
	}
	if a > 1 {
		n, d = n/a, d/a
	}
	if n >= fracLimit || n <= -fracLimit || d >= fracLimit {
		return frac{}, false
	}
	return frac{n, d}, true
}

// combineFrac is combine for fracs. valid is false for a division by zero,
// fits is false if the result overflows.
func combineFrac(c int, a, b frac) (z frac, valid, fits bool) {
	switch c {
	case 0:
		z, fits = mkFrac(a.n*b.d+b.n*a.d, a.d*b.d)
	case 1:
		z, fits = mkFrac(a.n*b.n, a.d*b.d)
	case 2:
		z, fits = mkFrac(a.n*b.d-b.n*a.d, a.d*b.d)
	case 3:
		z, fits = mkFrac(b.n*a.d-a.n*b.d, a.d*b.d)
	case 4:
		if b.n == 0 {
			return frac{}, false, true
		}
		z, fits = mkFrac(a.n*b.d, a.d*b.n)
	case 5:
		if a.n == 0 {
			return frac{}, false, true
		}
		z, fits = mkFrac(b.n*a.d, b.d*a.n)
	}
	return z, fits, fits
}

// sameFrac reports whether two fracs are equal in value.
func sameFrac(a, b frac) bool { return a.n*b.d == b.n*a.d }

// solvableFrac is solvable on fracs; ok is false if a value overflowed, in
// which case the caller must redo the search with math/big. States of five
// or more numbers are memoised in memo.
func solvableFrac(s []frac, memo map[string]bool) (res, ok bool) {
	switch len(s) {
	case 0:
		return false, true
	case 1:
		return s[0].n == 24*s[0].d, true
	}
	var key string
	if len(s) >= 5 {
		key = fracKey(s)
		if v, hit := memo[key]; hit {
			return v, true
		}
	}
	next := make([]frac, len(s)-1)
	for i := 0; i < len(s); i++ {
		for j := i + 1; j < len(s); j++ {
			if seenPair(s, i, j) {
				continue
			}
			k := 0
			for m, v := range s {
				if m != i && m != j {
					next[k] = v
					k++
				}
			}
			for c := 0; c < 6; c++ {
				z, valid, fits := combineFrac(c, s[i], s[j])
				if !fits {
					return false, false
				}
				if !valid {
					continue
				}
				next[k] = z
				r, ok := solvableFrac(next, memo)
				if !ok {
					return false, false
				}
				if r {
					if key != "" {
						memo[key] = true
					}
					return true, true
				}
			}
		}
	}
	if key != "" {
		memo[key] = false
	}
	return false, true
}

// seenPair reports whether an earlier pair (in the loop order of
// solvableFrac) has the same two values as s[i], s[j]: its results are the
// same, so it need not be searched again.
func seenPair(s []frac, i, j int) bool {
	for p := 0; p <= i; p++ {
		for q := p + 1; q < len(s); q++ {
			if p == i && q == j {
				return false
			}
			if (sameFrac(s[p], s[i]) && sameFrac(s[q], s[j])) || (sameFrac(s[p], s[j]) && sameFrac(s[q], s[i])) {
				return true
			}
		}
	}
	return false
}

// fracKey is the FormatState key of a frac state.
func fracKey(s []frac) string {
	rs := make([]*big.Rat, len(s))
	for i, f := range s {
		rs[i] = big.NewRat(f.n, f.d)
	}
	return FormatState(rs)
}

// combine sets z to the c-th combination of a and b (a+b, a*b, a-b, b-a,
// a/b, b/a), reporting false for a division by zero.
func combine(z *big.Rat, c int, a, b *big.Rat) bool {
	switch c {
	case 0:
		z.Add(a, b)
	case 1:
		z.Mul(a, b)
	case 2:
		z.Sub(a, b)
	case 3:
		z.Sub(b, a)
	case 4:
		if b.Sign() == 0 {
			return false
		}
		z.Quo(a, b)
	case 5:
		if a.Sign() == 0 {
			return false
		}
		z.Quo(b, a)
	}
	return true
}

func pairMakes24(a, b *big.Rat) bool {
	var r big.Rat
	for c := 0; c < 6; c++ {
		if combine(&r, c, a, b) && r.Cmp(rat24) == 0 {
			return true
		}
	}
	return false
}

// Solutions returns every distinct expression that uses each of numbers
// exactly once and equals 24, distinct by Canonical (for each Canonical form
// the lexicographically smallest String is kept), sorted. Intermediate values
// may be negative or fractional. It returns nil if there is none, or if a
// number is negative (ParseExpr cannot read negative literals).
func Solutions(numbers []int) []string {
	if len(numbers) == 0 {
		return nil
	}
	sorted := slices.Clone(numbers)
	slices.Sort(sorted) // the result depends only on the multiset
	nodes := make([]*Expr, len(sorted))
	for i, n := range sorted {
		if n < 0 {
			return nil
		}
		nodes[i] = &Expr{val: big.NewRat(int64(n), 1)}
	}
	best := map[string]string{}
	var rec func([]*Expr)
	rec = func(ns []*Expr) {
		if len(ns) > 1 && !Solvable(exprValues(ns)) {
			return // prune dead ends
		}
		if len(ns) == 1 {
			if ns[0].val.Cmp(rat24) == 0 {
				k, s := Canonical(ns[0]), ns[0].String()
				if old, ok := best[k]; !ok || s < old {
					best[k] = s
				}
			}
			return
		}
		for i := 0; i < len(ns); i++ {
			for j := i + 1; j < len(ns); j++ {
				rest := make([]*Expr, 0, len(ns)-1)
				for k, n := range ns {
					if k != i && k != j {
						rest = append(rest, n)
					}
				}
				a, b := ns[i], ns[j]
				for _, c := range [...]struct {
					op   byte
					l, r *Expr
				}{{'+', a, b}, {'*', a, b}, {'-', a, b}, {'-', b, a}, {'/', a, b}, {'/', b, a}} {
					e, err := newBinary(c.op, c.l, c.r)
					if err != nil {
						continue
					}
					rec(append(rest[:len(rest):len(rest)], e))
				}
			}
		}
	}
	rec(nodes)
	if len(best) == 0 {
		return nil
	}
	out := make([]string, 0, len(best))
	for _, s := range best {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func exprValues(ns []*Expr) []*big.Rat {
	out := make([]*big.Rat, len(ns))
	for i, n := range ns {
		out[i] = n.val
	}
	return out
}
