package store

import (
	"context"
	"fmt"
)

// Node is one state of a search tree (Tree of Thoughts).
type Node struct {
	RunID    int64
	Item     int
	ID       int
	Parent   int // -1 for the root
	Depth    int
	Thought  string // the state's text
	Value    float64
	Selected bool
	Pruned   bool
	Terminal bool
	Visits   int // MCTS iterations through the node; 0 for other searches
}

// PutNodes stores an item's tree in one transaction, replacing any earlier
// tree of the same item.
func (s *Store) PutNodes(ctx context.Context, runID int64, item int, nodes []Node) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("put nodes: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM nodes WHERE run_id = ? AND item_idx = ?`, runID, item); err != nil {
		return fmt.Errorf("put nodes: %w", err)
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO nodes (run_id, item_idx, node_id, parent, depth, thought, value, selected, pruned, terminal, visits)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("put nodes: %w", err)
	}
	defer st.Close()
	for _, n := range nodes {
		if _, err := st.ExecContext(ctx, runID, item, n.ID, n.Parent, n.Depth, n.Thought, n.Value, n.Selected, n.Pruned, n.Terminal, n.Visits); err != nil {
			return fmt.Errorf("put node %d: %w", n.ID, err)
		}
	}
	return tx.Commit()
}

// Nodes returns an item's tree ordered by node id.
func (s *Store) Nodes(ctx context.Context, runID int64, item int) ([]Node, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT node_id, parent, depth, thought, value, selected, pruned, terminal, visits
		FROM nodes WHERE run_id = ? AND item_idx = ? ORDER BY node_id`, runID, item)
	if err != nil {
		return nil, fmt.Errorf("nodes of run %d item %d: %w", runID, item, err)
	}
	defer rows.Close()
	var out []Node
	for rows.Next() {
		n := Node{RunID: runID, Item: item}
		if err := rows.Scan(&n.ID, &n.Parent, &n.Depth, &n.Thought, &n.Value, &n.Selected, &n.Pruned, &n.Terminal, &n.Visits); err != nil {
			return nil, fmt.Errorf("nodes of run %d item %d: %w", runID, item, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Step is one step of an agent's trajectory.
type Step struct {
	RunID   int64
	Item    int
	Trial   int
	Step    int
	Kind    string // thought, action, observation, answer, reflection, feedback, ...
	Content string
}

// PutStep stores one trajectory step, replacing one with the same position.
func (s *Store) PutStep(ctx context.Context, st Step) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO steps (run_id, item_idx, trial, step, kind, content)
		VALUES (?, ?, ?, ?, ?, ?)`, st.RunID, st.Item, st.Trial, st.Step, st.Kind, st.Content)
	if err != nil {
		return fmt.Errorf("put step %d of item %d: %w", st.Step, st.Item, err)
	}
	return nil
}

// Steps returns an item's trajectory ordered by trial and step.
func (s *Store) Steps(ctx context.Context, runID int64, item int) ([]Step, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT trial, step, kind, content FROM steps
		WHERE run_id = ? AND item_idx = ? ORDER BY trial, step`, runID, item)
	if err != nil {
		return nil, fmt.Errorf("steps of run %d item %d: %w", runID, item, err)
	}
	defer rows.Close()
	var out []Step
	for rows.Next() {
		st := Step{RunID: runID, Item: item}
		if err := rows.Scan(&st.Trial, &st.Step, &st.Kind, &st.Content); err != nil {
			return nil, fmt.Errorf("steps of run %d item %d: %w", runID, item, err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
