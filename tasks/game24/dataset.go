package game24

import (
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
)

var puzzlesHash = sync.OnceValue(func() string { return tasks.SHA256([]byte(puzzlesCSV)) })

// Dataset names the embedded puzzles (data/24.csv) by their digest.
func (*Task) Dataset() tasks.Dataset {
	return tasks.Dataset{Name: "game24", SHA256: puzzlesHash(), Rows: NumPuzzles}
}

var _ tasks.DataSource = (*Task)(nil)
