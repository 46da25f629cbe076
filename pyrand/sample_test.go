package pyrand

import (
	"reflect"
	"testing"
)

// Values printed by CPython 3.11 (random.seed, randint, sample over
// range(n)): the few-shot agent's draw of tau-bench, whose run.py seeds
// with 10 and draws randint(0, len(tasks)) once before the samples.
func TestSampleAsCPython(t *testing.T) {
	t.Parallel()
	cases := []struct {
		seed    uint64
		randint [2]int // -1 for none
		n, k    int
		want    [][]int
	}{
		{10, [2]int{0, 50}, 19, 5, [][]int{{1, 13, 15, 0, 3}, {14, 15, 8, 5, 0}, {16, 15, 10, 2, 3}}},
		{10, [2]int{0, 115}, 69, 5, [][]int{{4, 54, 61, 1, 26}, {59, 62, 35, 20, 4}, {66, 62, 41, 9, 31}}},
		{3, [2]int{-1, -1}, 30, 8, [][]int{{7, 18, 17, 4, 11, 19, 15, 20}}},
	}
	for _, tc := range cases {
		r := New(tc.seed)
		if tc.randint[0] >= 0 {
			want := map[int]int{50: 36, 115: 73}[tc.randint[1]]
			if got := r.RandInt(tc.randint[0], tc.randint[1]); got != want {
				t.Errorf("seed %d: randint(0, %d) = %d, want %d", tc.seed, tc.randint[1], got, want)
			}
		}
		for i, want := range tc.want {
			if got := r.Sample(tc.n, tc.k); !reflect.DeepEqual(got, want) {
				t.Errorf("seed %d: sample %d of range(%d), %d = %v, want %v", tc.seed, i, tc.n, tc.k, got, want)
			}
		}
	}
	// After sample(range(30), 8) above, seed 3 continues with
	// sample(range(100), 7), the set-based branch.
	r := New(3)
	r.Sample(30, 8)
	if got, want := r.Sample(100, 7), []int{74, 8, 77, 1, 60, 33, 70}; !reflect.DeepEqual(got, want) {
		t.Errorf("sample(range(100), 7) = %v, want %v", got, want)
	}
}
