package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// listWidth is the column bench list wraps its help text at.
const listWidth = 100

// wrapLine writes head followed by text, wrapped at listWidth between
// words (a word longer than a line stays whole), continuation lines
// indented under the text's start, or by eight spaces when head is
// long.
func wrapLine(w io.Writer, head, text string) {
	indent := utf8.RuneCountInString(head)
	if indent > listWidth/2 {
		indent = 8
	}
	pad := strings.Repeat(" ", indent)
	line, n := head, utf8.RuneCountInString(head)
	first := true
	for _, word := range strings.Fields(text) {
		wl := utf8.RuneCountInString(word)
		if !first && n+1+wl > listWidth {
			fmt.Fprintln(w, line)
			line, n = pad+word, indent+wl
			continue
		}
		if first && strings.HasSuffix(line, " ") || line == "" {
			line += word
			n += wl
		} else {
			line += " " + word
			n += 1 + wl
		}
		first = false
	}
	fmt.Fprintln(w, line)
}
