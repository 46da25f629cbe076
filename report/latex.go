package report

import (
	"fmt"
	"io"
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

// writeLatex renders a booktabs tabular: a "% caption:" comment line, the
// table, and the notes as full-width footnote rows under \bottomrule.
func writeLatex(w io.Writer, caption string, header []string, body [][]cell, right []bool, notes []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%% caption: %s\n", oneLine(caption))
	b.WriteString("% requires \\usepackage{booktabs}\n")
	spec := make([]byte, len(header))
	for i := range header {
		spec[i] = 'l'
		if right[i] {
			spec[i] = 'r'
		}
	}
	fmt.Fprintf(&b, "\\begin{tabular}{%s}\n\\toprule\n", spec)
	hs := make([]string, len(header))
	for i, h := range header {
		hs[i] = LatexEscape(h)
	}
	b.WriteString(strings.Join(hs, " & ") + ` \\` + "\n\\midrule\n")
	for _, line := range body {
		cs := make([]string, len(line))
		for i, c := range line {
			cs[i] = LatexEscape(c.text)
			if c.mark != "" {
				cs[i] += `\textsuperscript{` + LatexEscape(c.mark) + `}`
			}
		}
		b.WriteString(strings.Join(cs, " & ") + ` \\` + "\n")
	}
	b.WriteString("\\bottomrule\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "\\multicolumn{%d}{l}{\\footnotesize %s} \\\\\n", len(header), LatexEscape(n))
	}
	b.WriteString("\\end{tabular}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
