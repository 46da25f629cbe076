// Package suggest finds the name a user probably meant: "did you mean
// --range?" for --rnage, "report" for repor, "game24" for game42.
package suggest

import "strings"

// Nearest is the candidate nearest to name in edit distance, ignoring case,
// if it is near enough to be a typo (at most a third of name's length in
// edits, at least 2); "" otherwise.
func Nearest(name string, candidates []string) string {
	best, bestD := "", max(2, len(name)/3)+1
	n := strings.ToLower(name)
	for _, c := range candidates {
		if d := Distance(n, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Damerau–Levenshtein distance between a and b (an
// adjacent swap, as in "rnage", counts one edit).
func Distance(a, b string) int {
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
