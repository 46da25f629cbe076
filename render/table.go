package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// table is one table as every format writes it, so each writer builds its
// cells and leaves the choice of format to writeTable.
type table struct {
	header []string
	body   [][]cell // md (a mark after its text) and latex (a mark as a footnote)
	right  []bool   // right-aligned columns; nil: rightAligned(header)
	notes  []string // under a Markdown table, footnotes of a LaTeX one
	// caption is the LaTeX table's; a table without one has no latex format.
	caption string
	csv     [][]string // header line first; nil: header and body's text
	json    any        // what the json format encodes
	flag    string     // the flag a format error names ("--by budget"), if any
}

// writeTable writes t in format (md, csv, latex or json); cols, when given,
// are the LaTeX table's columns by header name (bench report --columns).
func writeTable(w io.Writer, format string, t table, cols []string) error {
	if len(cols) > 0 && format != "latex" {
		return fmt.Errorf("--columns chooses the columns of a LaTeX table: add --format latex")
	}
	right := t.right
	if right == nil {
		right = rightAligned(t.header)
	}
	switch {
	case format == "md":
		text := make([][]string, len(t.body))
		for i, line := range t.body {
			text[i] = make([]string, len(line))
			for j, c := range line {
				text[i][j] = c.text
				if c.mark != "" {
					text[i][j] += " " + c.mark
				}
			}
		}
		if err := renderMarkdown(w, t.header, text, right); err != nil {
			return err
		}
		return writeNotes(w, t.notes)
	case format == "latex" && t.caption != "":
		return writeLatex(w, t.caption, t.header, t.body, right, t.notes, cols...)
	case format == "csv":
		out := t.csv
		if out == nil {
			out = [][]string{t.header}
			for _, line := range t.body {
				texts := make([]string, len(line))
				for j, c := range line {
					texts[j] = c.text
				}
				out = append(out, texts)
			}
		}
		return csv.NewWriter(w).WriteAll(out)
	case format == "json":
		return encodeJSON(w, t.json)
	}
	known := SeriesFormats
	if t.caption != "" {
		known = Formats
	}
	if t.flag != "" {
		return fmt.Errorf("unknown format %q for %s (known: %s)", format, t.flag, strings.Join(known, ", "))
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(known, ", "))
}
