package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/reasonbench/reasonbench/store"
)

// WriteTree prints a search tree as an indented text tree. Each node shows
// the step it added (the last line of its state) and its value; the path to
// best is marked "*", other beam-selected nodes "+", pruned ones "x".
func WriteTree(w io.Writer, nodes []store.Node, best int) error {
	children := map[int][]store.Node{}
	byID := map[int]store.Node{}
	var roots []store.Node
	for _, n := range nodes {
		byID[n.ID] = n
		if n.Parent < 0 {
			roots = append(roots, n)
		} else {
			children[n.Parent] = append(children[n.Parent], n)
		}
	}
	onPath := map[int]bool{}
	for id := best; id >= 0; {
		n, ok := byID[id]
		if !ok {
			break
		}
		onPath[id] = true
		id = n.Parent
	}
	var walk func(n store.Node) error
	walk = func(n store.Node) error {
		mark := " "
		switch {
		case onPath[n.ID]:
			mark = "*"
		case n.Pruned:
			mark = "x"
		case n.Selected:
			mark = "+"
		}
		label := "(root)"
		if n.Parent >= 0 {
			label = lastLine(n.Thought)
		}
		visits := ""
		if n.Visits > 0 {
			visits = fmt.Sprintf(" visits=%d", n.Visits)
		}
		if _, err := fmt.Fprintf(w, "%s%s [%d] %s  value=%.3g%s\n", strings.Repeat("  ", n.Depth), mark, n.ID, label, n.Value, visits); err != nil {
			return err
		}
		for _, c := range children[n.ID] {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return err
		}
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// WriteSteps prints a trajectory, trial by trial.
func WriteSteps(w io.Writer, steps []store.Step) error {
	trial := -1
	for _, s := range steps {
		if s.Trial != trial {
			trial = s.Trial
			if _, err := fmt.Fprintf(w, "--- trial %d\n", trial+1); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "%-12s %s\n", s.Kind+":", strings.ReplaceAll(strings.TrimSpace(s.Content), "\n", "\n             ")); err != nil {
			return err
		}
	}
	return nil
}
