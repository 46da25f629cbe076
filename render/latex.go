package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// cell is a table cell with an optional footnote mark ("W", "t"), rendered
// as " W" in Markdown and as a superscript in LaTeX.
type cell struct {
	text, mark string
}

func plainBody(body [][]string) [][]cell {
	out := make([][]cell, len(body))
	for i, line := range body {
		out[i] = make([]cell, len(line))
		for j, s := range line {
			out[i][j] = cell{text: s}
		}
	}
	return out
}

// LatexEscape escapes the characters LaTeX treats specially in text mode.
func LatexEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '&', '%', '$', '#', '_', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '<':
			b.WriteString(`\textless{}`)
		case '>':
			b.WriteString(`\textgreater{}`)
		case '|':
			b.WriteString(`\textbar{}`)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// writeLatex renders a paper-ready booktabs table: a table float with
// \caption and \label, columns empty in every row left out, and the notes
// as full-width footnote rows under \bottomrule.
//
// cols, when given, are the columns to show instead, in that order, by
// header name (any case); they are kept even when empty.
func writeLatex(w io.Writer, caption string, header []string, body [][]cell, right []bool, notes []string, cols ...string) error {
	if len(cols) > 0 {
		keep, err := pickColumns(header, cols)
		if err != nil {
			return err
		}
		return writeLatexColumns(w, caption, header, body, right, notes, keep)
	}
	keep := make([]int, 0, len(header))
	for i := range header {
		for _, line := range body {
			if i < len(line) && (strings.TrimSpace(line[i].text) != "" || line[i].mark != "") {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(body) == 0 {
		keep = keep[:0]
		for i := range header {
			keep = append(keep, i)
		}
	}
	return writeLatexColumns(w, caption, header, body, right, notes, keep)
}

// ColumnsError is a --columns name the table does not have; it lists the
// names it has.
type ColumnsError struct {
	Name  string
	Known []string
}

func (e ColumnsError) Error() string {
	return fmt.Sprintf("--columns: no column %q in this table (its columns: %s)", e.Name, strings.Join(e.Known, ", "))
}

// pickColumns finds each name among header (case-insensitive, spaces
// trimmed), in the order given.
func pickColumns(header, cols []string) ([]int, error) {
	var keep []int
	for _, c := range cols {
		name := strings.TrimSpace(c)
		i := slices.IndexFunc(header, func(h string) bool { return strings.EqualFold(h, name) })
		if i < 0 {
			return nil, ColumnsError{Name: name, Known: header}
		}
		keep = append(keep, i)
	}
	return keep, nil
}

// writeLatexColumns writes the table with columns keep of header and body.
func writeLatexColumns(w io.Writer, caption string, header []string, body [][]cell, right []bool, notes []string, keep []int) error {
	var b strings.Builder
	b.WriteString("% requires \\usepackage{booktabs}\n")
	b.WriteString("\\begin{table}[t]\n\\centering\n")
	fmt.Fprintf(&b, "\\caption{%s}\n\\label{tab:%s}\n", LatexEscape(oneLine(caption)), latexLabel(caption))
	spec := make([]byte, len(keep))
	for k, i := range keep {
		spec[k] = 'l'
		if right[i] {
			spec[k] = 'r'
		}
	}
	fmt.Fprintf(&b, "\\begin{tabular}{%s}\n\\toprule\n", spec)
	hs := make([]string, len(keep))
	for k, i := range keep {
		hs[k] = LatexEscape(header[i])
	}
	b.WriteString(strings.Join(hs, " & ") + ` \\` + "\n\\midrule\n")
	for _, line := range body {
		cs := make([]string, len(keep))
		for k, i := range keep {
			if i >= len(line) {
				continue
			}
			c := line[i]
			cs[k] = LatexEscape(c.text)
			if c.mark != "" {
				cs[k] += `\textsuperscript{` + LatexEscape(c.mark) + `}`
			}
		}
		b.WriteString(strings.Join(cs, " & ") + ` \\` + "\n")
	}
	b.WriteString("\\bottomrule\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "\\multicolumn{%d}{l}{\\footnotesize %s} \\\\\n", len(keep), LatexEscape(n))
	}
	b.WriteString("\\end{tabular}\n\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// latexLabel makes a \label key from a caption: lower-case letters, digits
// and dashes, so it never needs escaping.
func latexLabel(caption string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(caption) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return "results"
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
