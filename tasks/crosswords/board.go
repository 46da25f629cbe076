// Package crosswords is the 5×5 Mini Crosswords task of the Tree of Thoughts
// paper (Yao et al. 2023): the 20 test puzzles of the ToT repository, the
// board environment its depth-first search runs in (actions "h1. word"
// written in order, later letters overwriting earlier ones, a status per
// clue), the paper's letter/word/game metrics and the reference's reading
// of io/cot grids.
//
// Model output is hostile input: nothing here panics on any text.
package crosswords

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Size is the side of the grid; a puzzle has 2*Size clues (h1-h5 the rows
// top to bottom, v1-v5 the columns left to right).
const Size = 5

// Blank is an empty cell.
const Blank = '_'

// Status is what has happened to a clue's word.
type Status int

// The reference environment's statuses.
const (
	Unfilled Status = 0 // no action wrote this clue
	Filled   Status = 1 // an action wrote this clue
	Changed  Status = 2 // a later action overwrote one of its letters
)

// Board is the reference environment's state: the 25 cells row by row,
// the status of each of the 10 clues (h1..h5, v1..v5) and how many actions
// were applied (invalid ones included, as the reference counts them).
type Board struct {
	Cells  [Size * Size]rune
	Status [2 * Size]Status
	Steps  int
}

// NewBoard is an empty board.
func NewBoard() Board {
	var b Board
	for i := range b.Cells {
		b.Cells[i] = Blank
	}
	return b
}

// ClueName is "h1".."h5" for 0-4 and "v1".."v5" for 5-9.
func ClueName(i int) string {
	if i < Size {
		return "h" + strconv.Itoa(i+1)
	}
	return "v" + strconv.Itoa(i-Size+1)
}

// cell is the index of letter k of clue i.
func cell(i, k int) int {
	if i < Size {
		return i*Size + k
	}
	return k*Size + (i - Size)
}

// Word returns clue i's current letters (with blanks).
func (b *Board) Word(i int) string {
	var s strings.Builder
	for k := range Size {
		s.WriteRune(b.Cells[cell(i, k)])
	}
	return s.String()
}

// Blanks counts the blank cells of clue i.
func (b *Board) Blanks(i int) int {
	n := 0
	for k := range Size {
		if b.Cells[cell(i, k)] == Blank {
			n++
		}
	}
	return n
}

// ParseAction reads "h1. word": the clue index (0-9) and the word. As the
// reference, only the last line counts and it must split into exactly two
// parts at ". "; the word must have 5 characters. Positions other than
// h1-h5 and v1-v5 are invalid (the reference's would raise or corrupt its
// board).
func ParseAction(action string) (clue int, word string, err error) {
	if i := strings.LastIndexByte(action, '\n'); i >= 0 {
		action = action[i+1:]
	}
	parts := strings.Split(action, ". ")
	if len(parts) != 2 {
		return 0, "", fmt.Errorf(`invalid action %q: want "h1. apple"`, clip(action))
	}
	pos, word := parts[0], parts[1]
	if utf8.RuneCountInString(word) != Size {
		return 0, "", fmt.Errorf("invalid action %q: the word must have 5 letters", clip(action))
	}
	if len(pos) < 2 || (pos[0] != 'h' && pos[0] != 'v') {
		return 0, "", fmt.Errorf("invalid action %q: the position must be h1-h5 or v1-v5", clip(action))
	}
	n, err := strconv.Atoi(pos[1:])
	if err != nil || n < 1 || n > Size {
		return 0, "", fmt.Errorf("invalid action %q: the position must be h1-h5 or v1-v5", clip(action))
	}
	clue = n - 1
	if pos[0] == 'v' {
		clue += Size
	}
	return clue, word, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// Apply writes one action as the reference's env.step does: the step
// counts even when the action is invalid (then nothing else changes);
// a valid word is upper-cased into its cells, every clue one of whose
// letters changed becomes Changed, and the written clue Filled.
func (b *Board) Apply(action string) error {
	b.Steps++
	clue, word, err := ParseAction(action)
	if err != nil {
		return err
	}
	var before [2 * Size]string
	for i := range before {
		before[i] = b.Word(i)
	}
	k := 0
	for _, r := range word {
		b.Cells[cell(clue, k)] = unicode.ToUpper(r)
		k++
	}
	for i := range before {
		old, now := []rune(before[i]), []rune(b.Word(i))
		for j := range old {
			if old[j] != now[j] && old[j] != Blank {
				b.Status[i] = Changed
				break
			}
		}
	}
	b.Status[clue] = Filled
	return nil
}

// AnyChanged reports whether some clue is Changed: an action overwrote a
// letter written before (the notebook's search never keeps such a state).
func (b *Board) AnyChanged() bool {
	for _, s := range b.Status {
		if s == Changed {
			return true
		}
	}
	return false
}

// Replay applies actions in order to an empty board.
func Replay(actions []string) Board {
	b := NewBoard()
	for _, a := range actions {
		_ = b.Apply(a) // an invalid action only counts as a step
	}
	return b
}

// Rows returns the board as 5 rows of 5 characters.
func (b *Board) Rows() []string {
	rows := make([]string, Size)
	for i := range rows {
		rows[i] = string(b.Cells[i*Size : (i+1)*Size])
	}
	return rows
}

// Render is the reference environment's observation: the board, then the
// clues with their current letters grouped as unfilled, filled and
// changed. The proposal prompts show it, so it is kept byte for byte.
func (b *Board) Render(clues []string) string {
	var s strings.Builder
	s.WriteString("Current Board:\n")
	for _, r := range b.Rows() {
		s.WriteString(r)
		s.WriteByte('\n')
	}
	for _, sec := range []struct {
		title string
		st    Status
	}{{"\nUnfilled:\n", Unfilled}, {"\nFilled:\n", Filled}, {"\nChanged:\n", Changed}} {
		s.WriteString(sec.title)
		for i := range 2 * Size {
			if b.Status[i] == sec.st && i < len(clues) {
				fmt.Fprintf(&s, "%s. %s: %s\n", ClueName(i), clues[i], b.Word(i))
			}
		}
	}
	return s.String()
}

// Metrics are the paper's figures for a board against the solution.
type Metrics struct {
	Letter float64 // fraction of the 25 cells equal to the solution's
	Word   float64 // fraction of the 10 words equal to the solution's
	Game   bool    // every cell right
}

// Measure compares the board with the solution (25 capital letters).
func (b *Board) Measure(solution [Size * Size]rune) Metrics {
	gold := Board{Cells: solution}
	letters, words := 0, 0
	for i := range b.Cells {
		if b.Cells[i] == solution[i] {
			letters++
		}
	}
	for i := range 2 * Size {
		if b.Word(i) == gold.Word(i) {
			words++
		}
	}
	return Metrics{Letter: float64(letters) / (Size * Size), Word: float64(words) / (2 * Size), Game: letters == Size*Size}
}
