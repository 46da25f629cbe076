// Package pyrand reproduces the parts of CPython's random module a
// reference's data selection depends on: the Mersenne Twister (MT19937)
// seeded from an integer as random.seed(n) seeds it, getrandbits, and
// random.shuffle (Python 3.2 and later, which draws with _randbelow over
// getrandbits), so that a paper's "random.seed(0); random.shuffle(xs)"
// selects the same items here.
package pyrand

import "math"

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is one Mersenne Twister state.
type Rand struct {
	mt  [n]uint32
	mti int
}

// New returns the generator random.seed(seed) makes for a non-negative
// int seed: CPython seeds with init_by_array over the seed's 32-bit words,
// least significant first (one word 0 for 0).
func New(seed uint64) *Rand {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &Rand{}
	r.initByArray(key)
	return r
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is genrand_uint32: the next tempered 32-bit output.
func (r *Rand) Uint32() uint32 {
	if r.mti >= n {
		for k := range n {
			y := r.mt[k]&upperMask | r.mt[(k+1)%n]&lowerMask
			v := r.mt[(k+m)%n] ^ y>>1
			if y&1 != 0 {
				v ^= matrixA
			}
			r.mt[k] = v
		}
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Getrandbits is random.getrandbits(k) for 0 < k <= 32.
func (r *Rand) Getrandbits(k int) uint32 {
	return r.Uint32() >> (32 - k)
}

// Randbelow is random._randbelow(n) for 0 < n < 2^32: getrandbits of n's
// bit length, redrawn until below n.
func (r *Rand) Randbelow(n int) int {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		if v := int(r.Getrandbits(k)); v < n {
			return v
		}
	}
}

// Shuffle is random.shuffle over a sequence of length size, swapping
// with swap(i, j) as Python swaps x[i] and x[j].
func (r *Rand) Shuffle(size int, swap func(i, j int)) {
	for i := size - 1; i > 0; i-- {
		swap(i, r.Randbelow(i+1))
	}
}

// Permutation is the order random.seed(seed); random.shuffle(xs) leaves
// xs = [0, 1, ..., size-1] in: Permutation(...)[i] is the original index
// of the item at position i.
func Permutation(seed uint64, size int) []int {
	xs := make([]int, size)
	for i := range xs {
		xs[i] = i
	}
	New(seed).Shuffle(size, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

// NewNumPy returns the generator numpy's legacy np.random.seed(seed)
// makes for an int seed below 2^32: init_genrand, not init_by_array.
func NewNumPy(seed uint32) *Rand {
	r := &Rand{}
	r.initGenrand(seed)
	return r
}

// NumPyRandint is numpy's legacy RandomState.randint(low, high) for a
// range high-low below 2^32 (the default int64 dtype): a 32-bit draw
// masked to the range's bit width, redrawn while above high-1-low.
func (r *Rand) NumPyRandint(low, high int64) int64 {
	rng := uint32(high - 1 - low)
	if rng == 0 {
		return low
	}
	mask := rng
	for _, s := range []uint{1, 2, 4, 8, 16} {
		mask |= mask >> s
	}
	for {
		if v := r.Uint32() & mask; v <= rng {
			return low + int64(v)
		}
	}
}

// RandInt is random.randint(a, b): a + _randbelow(b - a + 1).
func (r *Rand) RandInt(a, b int) int { return a + r.Randbelow(b-a+1) }

// Sample is the indices random.sample(population, k) picks from a
// population of n, in the order CPython 3.11 returns them: a pool it
// swaps from when n is small, else draws redrawn until new.
func (r *Rand) Sample(n, k int) []int {
	if k < 0 || k > n {
		return nil
	}
	out := make([]int, k)
	setsize := 21
	if k > 5 {
		// 4 ** ceil(log(k * 3, 4)), in floats as Python computes it.
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.Randbelow(n - i)
			out[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return out
	}
	selected := map[int]bool{}
	for i := range k {
		j := r.Randbelow(n)
		for selected[j] {
			j = r.Randbelow(n)
		}
		selected[j] = true
		out[i] = j
	}
	return out
}
