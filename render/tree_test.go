package render

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

func TestWriteTreeShowsVisits(t *testing.T) {
	nodes := []store.Node{
		{ID: 0, Parent: -1, Visits: 3, Selected: true},
		{ID: 1, Parent: 0, Depth: 1, Thought: "a", Value: 0.5, Visits: 2},
		{ID: 2, Parent: 0, Depth: 1, Thought: "b", Value: 0.25}, // a BFS node, or never visited
	}
	var b strings.Builder
	if err := WriteTree(&b, nodes, 1); err != nil {
		t.Fatal(err)
	}
	want := "* [0] (root)  value=0 visits=3\n  * [1] a  value=0.5 visits=2\n    [2] b  value=0.25\n"
	if b.String() != want {
		t.Errorf("tree:\n%s\nwant:\n%s", b.String(), want)
	}
}
