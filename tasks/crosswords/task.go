package crosswords

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/tasks"
)

// testJSON is the ToT repository's mini0505_0_100_5.json: puzzles 0, 5,
// ..., 95 of mini0505.json, the paper's 20 test games. Index k here is the
// `idx` of the reference's logs.
//
//go:embed data/mini0505_0_100_5.json
var testJSON []byte

// NumPuzzles is the number of bundled puzzles.
const NumPuzzles = 20

// Puzzle is one mini crossword.
type Puzzle struct {
	Index    int
	Clues    []string          // h1..h5, v1..v5
	Solution [Size * Size]rune // capital letters, row by row
}

// Clue list as the reference's render_clues: "h1. clue" lines.
func (p Puzzle) Text() string {
	var s strings.Builder
	for i, c := range p.Clues {
		fmt.Fprintf(&s, "%s. %s\n", ClueName(i), c)
	}
	return s.String()
}

var loadPuzzles = sync.OnceValues(func() ([]Puzzle, error) { return parsePuzzles(testJSON) })

func parsePuzzles(b []byte) ([]Puzzle, error) {
	var raw [][2][]string
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("crosswords data: %w", err)
	}
	out := make([]Puzzle, len(raw))
	for i, r := range raw {
		clues, sol := r[0], r[1]
		if len(clues) != 2*Size || len(sol) != Size*Size {
			return nil, fmt.Errorf("crosswords data: puzzle %d has %d clues and %d cells, want 10 and 25", i, len(clues), len(sol))
		}
		p := Puzzle{Index: i, Clues: clues}
		for k, c := range sol {
			r, n := utf8.DecodeRuneInString(c)
			if n != len(c) || n == 0 {
				return nil, fmt.Errorf("crosswords data: puzzle %d cell %d is %q, want one letter", i, k, c)
			}
			p.Solution[k] = r
		}
		out[i] = p
	}
	return out, nil
}

// Puzzles returns the 20 test puzzles.
func Puzzles() ([]Puzzle, error) { return loadPuzzles() }

// Task is Mini Crosswords as a benchmark task.
type Task struct{}

// NewTask returns the task over the bundled puzzles.
func NewTask() *Task { return &Task{} }

// Name is "crosswords".
func (*Task) Name() string { return "crosswords" }

// Instances returns the 20 test puzzles; Input is the clue list.
func (*Task) Instances() ([]tasks.Instance, error) {
	ps, err := Puzzles()
	if err != nil {
		return nil, err
	}
	out := make([]tasks.Instance, len(ps))
	for i, p := range ps {
		out[i] = tasks.Instance{Index: p.Index, Key: fmt.Sprintf("mini0505/%d", 5*p.Index), Input: p.Text(),
			Gold: string(p.Solution[:]), Data: p}
	}
	return out, nil
}

func puzzleOf(inst tasks.Instance) (Puzzle, bool) {
	p, ok := inst.Data.(Puzzle)
	return p, ok
}

// Score reads the output's board (a ToT state, or an io/cot grid's last 5
// lines, see BoardOf) and measures it: correct when the whole board is
// right; metrics letter, word and game.
func (t *Task) Score(inst tasks.Instance, output string) tasks.Score {
	p, ok := puzzleOf(inst)
	if !ok {
		return tasks.Score{Reason: "no puzzle"}
	}
	b := BoardOf(output)
	m := b.Measure(p.Solution)
	sc := tasks.Score{Correct: m.Game, Answer: strings.Join(b.Rows(), "/"),
		Metrics: map[string]float64{"letter": m.Letter, "word": m.Word, "game": b2f(m.Game)}}
	if !m.Game {
		sc.Reason = fmt.Sprintf("%d of 10 words, %d of 25 letters", int(math.Round(m.Word*10)), int(math.Round(m.Letter*25)))
	}
	return sc
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// VoteKeys: "board", the 25 cells read from an output.
func (*Task) VoteKeys() []string { return []string{"board"} }

// AnswerKey is the output's board, row by row.
func (*Task) AnswerKey(_ tasks.Instance, output, key string) (string, bool) {
	if key != "board" {
		return "", false
	}
	b := BoardOf(output)
	return strings.Join(b.Rows(), "/"), true
}

// RulePaper is the only scoring rule: the reference's test_output for
// io/cot grids and its env for ToT states.
const RulePaper = "paper"

// Rules lists "paper".
func (*Task) Rules() []string { return []string{RulePaper} }

// WithRule returns the task scored by the named rule.
func (t *Task) WithRule(name string) (tasks.Task, error) {
	if name != RulePaper {
		return nil, fmt.Errorf("crosswords has no scoring rule %q (known: %s)", name, RulePaper)
	}
	return t, nil
}

// ScoringRule describes the rule.
func (*Task) ScoringRule() string {
	return "crosswords/paper: the ToT reference's metrics: an io/cot grid is its last 5 lines after 'Output:' (5 space-separated letters a row), a ToT state its 'h1. word' lines applied in order; letter (of 25), word (of 10), game (all right)"
}

// ScoreRecord scores {"idx": k, "output": "..."}, k a position in the
// test file (0-19) as the reference's logs number puzzles.
func (t *Task) ScoreRecord(rec map[string]any) (tasks.Score, error) {
	f, ok := rec["idx"].(float64)
	output, ok2 := rec["output"].(string)
	if !ok || !ok2 {
		return tasks.Score{}, fmt.Errorf(`want {"idx": K, "output": TEXT}: K a test puzzle's position 0-%d, TEXT an io/cot answer or a ToT state`, NumPuzzles-1)
	}
	ps, err := Puzzles()
	if err != nil {
		return tasks.Score{}, err
	}
	if f != math.Trunc(f) || f < 0 || int(f) >= len(ps) {
		return tasks.Score{}, fmt.Errorf("idx %v: want a puzzle index 0-%d", f, len(ps)-1)
	}
	p := ps[int(f)]
	return t.Score(tasks.Instance{Index: p.Index, Input: p.Text(), Data: p}, output), nil
}

var dataHash = sync.OnceValue(func() string { return tasks.SHA256(testJSON) })

// Dataset names the embedded puzzles by their digest.
func (*Task) Dataset() tasks.Dataset {
	return tasks.Dataset{Name: "crosswords", SHA256: dataHash(), Rows: NumPuzzles}
}

var (
	_ tasks.RuleChooser  = (*Task)(nil)
	_ tasks.RuleNamer    = (*Task)(nil)
	_ tasks.RecordScorer = (*Task)(nil)
	_ tasks.DataSource   = (*Task)(nil)
	_ tasks.FillSpace    = (*Task)(nil)
)
