// Package code is the programming tasks: HumanEval (Chen et al., 2021; the
// 164 problems of openai/human-eval, MIT) and MBPP in the 397-problem typed
// Python form the Reflexion runs used (MultiPL-E's mbpp-py, as bundled in
// noahshinn/reflexion, MIT), both embedded with their licences
// (data/ORIGIN.md), and code tasks read from a data file with a test
// column (file.go).
//
// A problem is a Python function's signature and docstring; the verdict is
// whether the hidden tests pass when the output's program runs in the
// sandbox (package sandbox), never in this process. The task is
// tasks.Executed: the engine (or `bench score`) binds each item's copy to
// an executor; an unbound task runs nothing.
package code

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
)

//go:embed data/HumanEval.jsonl.gz
var humanEvalGz []byte

//go:embed data/mbpp-py.jsonl
var mbppJSONL []byte

// Sizes of the embedded data sets.
const (
	NumHumanEval = 164
	NumMBPP      = 397
)

// Task names.
const (
	HumanEval = "humaneval"
	MBPP      = "mbpp"
)

// Problem is one programming problem with its hidden test. HiddenTest and
// Canonical are the task's alone: strategies see a tasks.CodeProblem, and
// the simulator never reads this type (simulator/ bans both names).
type Problem struct {
	Index      int
	ID         string // "HumanEval/0", "mbpp_234_volume_cube", a file row's id
	Prompt     string // the signature and docstring
	EntryPoint string // the function the test calls
	HiddenTest string // Python source: defines check(candidate), may call it
	Canonical  string // HumanEval's reference body; "" elsewhere
}

// callsCheck tells a test that calls its checks itself (MBPP's ends in
// test_check()) from one that only defines check(candidate) (HumanEval's,
// for the harness to call with the entry point).
var callsCheck = regexp.MustCompile(`(?m)^(test_check|check)\(`)

// SelfChecking reports whether the hidden test calls its checks itself.
func (p Problem) SelfChecking() bool { return callsCheck.MatchString(p.HiddenTest) }

var humanEvalProblems = sync.OnceValues(func() ([]Problem, error) {
	zr, err := gzip.NewReader(bytes.NewReader(humanEvalGz))
	if err != nil {
		return nil, fmt.Errorf("humaneval: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("humaneval: %w", err)
	}
	var out []Problem
	err = eachLine(b, func(n int, line []byte) error {
		var r struct {
			TaskID            string `json:"task_id"`
			Prompt            string `json:"prompt"`
			EntryPoint        string `json:"entry_point"`
			CanonicalSolution string `json:"canonical_solution"`
			Test              string `json:"test"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("humaneval: line %d: %w", n, err)
		}
		out = append(out, Problem{Index: len(out), ID: r.TaskID, Prompt: r.Prompt, EntryPoint: r.EntryPoint,
			HiddenTest: r.Test, Canonical: r.CanonicalSolution})
		return nil
	})
	if err == nil && len(out) != NumHumanEval {
		err = fmt.Errorf("humaneval: %d problems embedded, want %d", len(out), NumHumanEval)
	}
	return out, err
})

var mbppProblems = sync.OnceValues(func() ([]Problem, error) {
	var out []Problem
	err := eachLine(mbppJSONL, func(n int, line []byte) error {
		var r struct {
			Name       string `json:"name"`
			Prompt     string `json:"prompt"`
			EntryPoint string `json:"entry_point"`
			Test       string `json:"test"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("mbpp: line %d: %w", n, err)
		}
		out = append(out, Problem{Index: len(out), ID: r.Name, Prompt: r.Prompt, EntryPoint: r.EntryPoint, HiddenTest: r.Test})
		return nil
	})
	if err == nil && len(out) != NumMBPP {
		err = fmt.Errorf("mbpp: %d problems embedded, want %d", len(out), NumMBPP)
	}
	return out, err
})

// eachLine calls f with every non-blank line and its 1-based number.
func eachLine(b []byte, f func(n int, line []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := f(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// HumanEvalProblems returns HumanEval's 164 problems in order, canonical
// solutions included (for tests and the benchmark; never the simulator's).
func HumanEvalProblems() ([]Problem, error) {
	ps, err := humanEvalProblems()
	return append([]Problem(nil), ps...), err
}

// MBPPProblems returns the 397 typed MBPP problems in order.
func MBPPProblems() ([]Problem, error) {
	ps, err := mbppProblems()
	return append([]Problem(nil), ps...), err
}

// NewHumanEval returns the HumanEval task (isolated rule).
func NewHumanEval() tasks.Task {
	ps, err := humanEvalProblems()
	if err != nil {
		return broken{HumanEval, err}
	}
	return newTask(HumanEval, ps, tasks.Dataset{Name: HumanEval, SHA256: tasks.SHA256(humanEvalGz), Rows: len(ps)}, []string{HumanEval})
}

// NewMBPP returns the typed MBPP task (isolated rule).
func NewMBPP() tasks.Task {
	ps, err := mbppProblems()
	if err != nil {
		return broken{MBPP, err}
	}
	return newTask(MBPP, ps, tasks.Dataset{Name: MBPP, SHA256: tasks.SHA256(mbppJSONL), Rows: len(ps)}, []string{MBPP})
}

// broken is a task whose data could not be read: every use reports it.
type broken struct {
	name string
	err  error
}

func (b broken) Name() string                         { return b.name }
func (b broken) Instances() ([]tasks.Instance, error) { return nil, b.err }
func (b broken) Score(tasks.Instance, string) tasks.Score {
	return tasks.Score{Reason: b.err.Error()}
}
func (b broken) AnswerKey(tasks.Instance, string, string) (string, bool) { return "", false }
func (b broken) VoteKeys() []string                                      { return []string{"code"} }
