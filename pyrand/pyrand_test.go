package pyrand

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
)

// testdata/python.json is CPython's output (testdata/gen.py).
func TestMatchesCPython(t *testing.T) {
	b, err := os.ReadFile("testdata/python.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Uint32    []uint32 `json:"seed0_uint32"`
		Randbelow []int    `json:"seed0_randbelow"`
		Shuffle   []int    `json:"seed0_shuffle_1319_first100"`
		Shuffle50 []int    `json:"seed_2p40p7_shuffle_50"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Uint32) != 700 || len(want.Shuffle) != 100 {
		t.Fatalf("fixture has %d outputs, %d shuffled", len(want.Uint32), len(want.Shuffle))
	}
	r := New(0)
	for i, w := range want.Uint32 {
		if got := r.Getrandbits(32); got != w {
			t.Fatalf("getrandbits(32) #%d = %d, want %d", i, got, w)
		}
	}
	r = New(0)
	for i, n := range []int{1, 2, 3, 7, 1000, 1319, 1<<31 + 5, 1<<32 - 1} {
		if got := r.Randbelow(n); got != want.Randbelow[i] {
			t.Errorf("_randbelow(%d) = %d, want %d", n, got, want.Randbelow[i])
		}
	}
	if got := Permutation(0, 1319)[:100]; !slices.Equal(got, want.Shuffle) {
		t.Errorf("seed 0 shuffle of 1319: %v\nwant %v", got, want.Shuffle)
	}
	if got := Permutation(1<<40+7, 50); !slices.Equal(got, want.Shuffle50) {
		t.Errorf("seed 2^40+7 shuffle of 50: %v\nwant %v", got, want.Shuffle50)
	}
}

// With python3 on the machine, the derivation is checked against it live.
func TestMatchesPython3Live(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	out, err := exec.Command("/usr/bin/python3", "-c",
		"import random,json;random.seed(0);x=list(range(1319));random.shuffle(x);print(json.dumps(x))").Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if got := Permutation(0, 1319); !slices.Equal(got, want) {
		t.Errorf("the whole seed-0 shuffle of 1319 differs from python3's")
	}
}

// testdata/numpy.json is numpy's output (testdata/gen_numpy.py).
func TestMatchesNumPyLegacy(t *testing.T) {
	b, err := os.ReadFile("testdata/numpy.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Six [][]int64 `json:"seed0_randint_0_30_size6_x100"`
		One []int64   `json:"seed12345_randint_5_1000_x50"`
	}
	if err := json.Unmarshal(b, &want); err != nil || len(want.Six) != 100 || len(want.One) != 50 {
		t.Fatalf("fixture: %v", err)
	}
	r := NewNumPy(0)
	for i, six := range want.Six {
		for j, w := range six {
			if got := r.NumPyRandint(0, 30); got != w {
				t.Fatalf("draw %d of call %d: %d, want %d", j, i, got, w)
			}
		}
	}
	r = NewNumPy(12345)
	for i, w := range want.One {
		if got := r.NumPyRandint(5, 1000); got != w {
			t.Fatalf("randint(5, 1000) #%d = %d, want %d", i, got, w)
		}
	}
}
