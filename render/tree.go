package render

import (
	"fmt"
	"io"
	"strconv"
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

// WriteExecutions prints an item's sandboxed executions: site, verdict,
// duration, then the program and the tail of what it printed.
func WriteExecutions(w io.Writer, execs []store.Execution) error {
	for _, e := range execs {
		verdict := e.Status
		switch {
		case e.Status == "exit":
			verdict = fmt.Sprintf("exit code %d", e.ExitCode)
		case e.Signal != "":
			verdict += " (" + e.Signal + ")"
		}
		if e.Truncated {
			verdict += ", output cut"
		}
		if _, err := fmt.Fprintf(w, "--- %s: %s in %s ms\n", e.Site, verdict, strconv.FormatFloat(e.DurationMS, 'f', -1, 64)); err != nil {
			return err
		}
		for _, part := range []struct{ name, text string }{{"program", e.Program}, {"stdout", tailLines(e.Stdout, 20)}, {"stderr", tailLines(e.Stderr, 20)}} {
			if strings.TrimSpace(part.text) == "" {
				continue
			}
			if _, err := fmt.Fprintf(w, "%-12s %s\n", part.name+":", strings.ReplaceAll(strings.TrimRight(part.text, "\n"), "\n", "\n             ")); err != nil {
				return err
			}
		}
	}
	return nil
}

// tailLines keeps the last n lines of s (and at most 4 KB), marking a cut.
func tailLines(s string, n int) string {
	cut := false
	if len(s) > 4096 {
		s, cut = s[len(s)-4096:], true
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines, cut = lines[len(lines)-n:], true
	}
	out := strings.Join(lines, "\n")
	if cut {
		out = "...\n" + out
	}
	return out
}
