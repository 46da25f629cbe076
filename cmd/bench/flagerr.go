package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags is fs.Parse without the usage dump on a mistake: -h prints
// the flags, a mistyped or malformed flag is one line (the closest flag
// named) for the caller to return as a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		return err
	}
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		name = strings.TrimLeft(name, "-")
		hint := ""
		if best := closestFlag(fs, name); best != "" {
			hint = fmt.Sprintf("did you mean --%s? ", best)
		}
		return fmt.Errorf("unknown flag --%s: %s(%s -h lists the flags)", name, hint, fs.Name())
	}
	return fmt.Errorf("%s (%s -h lists the flags)", strings.Join(strings.Fields(msg), " "), fs.Name())
}

// closestFlag is the flag of fs nearest to name in edit distance (at most
// a third of its length, at least 2 edits allowed), or "".
func closestFlag(fs *flag.FlagSet, name string) string {
	best, bestD := "", max(2, len(name)/3)+1
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(strings.ToLower(name), f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count
// one, as in "rnage").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
