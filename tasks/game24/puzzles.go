// Package game24 is the Game of 24 task: the 1362 puzzles of the Tree of
// Thoughts paper, an exact-arithmetic expression parser, answer extraction and
// scoring, parsing and checking of the step lines written during tree search,
// and an exact solver.
//
// Model output is treated as hostile input: nothing here evaluates it with
// anything but a hand-written parser over math/big.Rat, and no input makes
// the exported functions panic.
package game24

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/24.csv
var puzzlesCSV string

// NumPuzzles is the number of puzzles in the embedded data.
const NumPuzzles = 1362

// Puzzle is one row of the embedded 24.csv.
type Puzzle struct {
	Index      int     // 0-based data row index (the ToT paper's --range 900:1000 indexes these)
	Rank       int     // the CSV's Rank column
	Numbers    []int   // the four numbers, in CSV order
	SolvedRate float64 // "Solved rate" column as a fraction (99.20% -> 0.992)
}

// Text returns the numbers joined by single spaces, e.g. "4 5 6 10".
func (p Puzzle) Text() string {
	parts := make([]string, len(p.Numbers))
	for i, n := range p.Numbers {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}

var loadPuzzles = sync.OnceValues(func() ([]Puzzle, error) {
	return parsePuzzlesCSV(puzzlesCSV)
})

// Puzzles returns all 1362 puzzles, parsed once from the embedded CSV. The
// result is a fresh copy each call, so callers may modify it.
func Puzzles() ([]Puzzle, error) {
	ps, err := loadPuzzles()
	if err != nil {
		return nil, err
	}
	out := make([]Puzzle, len(ps))
	for i, p := range ps {
		p.Numbers = append([]int(nil), p.Numbers...)
		out[i] = p
	}
	return out, nil
}

func parsePuzzlesCSV(data string) ([]Puzzle, error) {
	r := csv.NewReader(strings.NewReader(data))
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("game24: reading 24.csv: %w", err)
	}
	if len(rows) == 0 {
		return nil, errors.New("game24: 24.csv is empty")
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[strings.TrimSpace(name)] = i
	}
	iRank, ok1 := col["Rank"]
	iPuz, ok2 := col["Puzzles"]
	iRate, ok3 := col["Solved rate"]
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("game24: 24.csv header %q lacks Rank, Puzzles or Solved rate", rows[0])
	}
	ps := make([]Puzzle, 0, len(rows)-1)
	for i, row := range rows[1:] {
		line := i + 2
		rank, err := strconv.Atoi(strings.TrimSpace(row[iRank]))
		if err != nil {
			return nil, fmt.Errorf("game24: 24.csv line %d: bad rank: %w", line, err)
		}
		nums, err := ParsePuzzle(row[iPuz])
		if err != nil {
			return nil, fmt.Errorf("game24: 24.csv line %d: %w", line, err)
		}
		if len(nums) != 4 {
			return nil, fmt.Errorf("game24: 24.csv line %d: want 4 numbers, got %d", line, len(nums))
		}
		rate, err := parsePercent(row[iRate])
		if err != nil {
			return nil, fmt.Errorf("game24: 24.csv line %d: %w", line, err)
		}
		ps = append(ps, Puzzle{Index: i, Rank: rank, Numbers: nums, SolvedRate: rate})
	}
	return ps, nil
}

// parsePercent reads "99.20%" as 0.992 (the float nearest the exact fraction).
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t, ok := strings.CutSuffix(t, "%")
	if !ok {
		return 0, fmt.Errorf("bad solved rate %q: want a percentage", s)
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(t))
	if !ok {
		return 0, fmt.Errorf("bad solved rate %q", s)
	}
	f, _ := r.Quo(r, big.NewRat(100, 1)).Float64()
	return f, nil
}

// ParsePuzzle reads whitespace-separated integers ("4 5 6 10" -> [4 5 6 10]).
// Any amount of whitespace is accepted; an empty string or a token that is not
// an integer is an error. It does not require exactly four numbers.
func ParsePuzzle(s string) ([]int, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, errors.New("puzzle has no numbers")
	}
	nums := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("puzzle %q: %q is not an integer", s, f)
		}
		nums[i] = n
	}
	return nums, nil
}
