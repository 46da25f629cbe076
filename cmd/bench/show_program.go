package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/strategies"
)

// writeProgramFailure prints why a program run's item has no answer (the
// program strategy's detail), with the program's stderr tail and the
// requests its endpoint refused; nothing for an item that has an answer.
func writeProgramFailure(w io.Writer, detail json.RawMessage) {
	var d strategies.ProgramDetail
	if json.Unmarshal(detail, &d) != nil || d.Failure == "" {
		return
	}
	fmt.Fprintf(w, "program failed: %s\n", d.Failure)
	for _, r := range d.Reasons {
		fmt.Fprintf(w, "  refused: %s\n", r)
	}
	if d.StderrTail != "" {
		fmt.Fprintf(w, "stderr (last %d bytes):\n%s\n", len(d.StderrTail), indent(d.StderrTail))
	}
}
