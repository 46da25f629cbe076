package reading

import "encoding/json"

// treeDetail is what the tree searches' details (tot, mcts, lats) have in
// common: the node the search ranks best and, for tot, its final frontier
// (bfs) or the terminals it visited (dfs).
type treeDetail struct {
	Best  int   `json:"best"`
	Final []int `json:"final"`
}

// viewTree marks a tree search's stored tree with its best node and, when
// the search keeps one, its final frontier.
func viewTree(detail []byte) ItemView {
	d := treeDetail{Best: -1}
	if json.Unmarshal(detail, &d) != nil {
		return ItemView{}
	}
	return ItemView{Tree: &TreeMarks{Best: d.Best, Final: d.Final}}
}
