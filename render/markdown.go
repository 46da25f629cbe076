package render

import "io"

// Markdown renders any table as Markdown; right marks right-aligned columns.
func Markdown(w io.Writer, header []string, body [][]string, right []bool) error {
	return renderMarkdown(w, header, body, right)
}
