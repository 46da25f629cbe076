package view

import "strings"

// diffLine is one line of a line diff: Op is ' ' (kept), '-' (removed) or
// '+' (added).
type diffLine struct {
	Op   string
	Text string
}

// maxDiffCells bounds the LCS table; beyond it the diff is "all removed,
// all added", which is still correct, only coarser.
const maxDiffCells = 4_000_000

// lineDiff returns a line diff of a and b from a longest common subsequence.
func lineDiff(a, b string) []diffLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	n, m := len(x), len(y)
	if n*m > maxDiffCells {
		out := make([]diffLine, 0, n+m)
		for _, l := range x {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range y {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	// lcs[i][j]: the LCS length of x[i:] and y[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			out = append(out, diffLine{" ", x[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"-", x[i]})
			i++
		default:
			out = append(out, diffLine{"+", y[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffLine{"-", x[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffLine{"+", y[j]})
	}
	return out
}
