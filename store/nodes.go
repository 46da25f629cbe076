package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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

// PutNodes stores an item's tree, replacing any earlier tree of the same
// item. A tree is one blob, so a rerun that grows the same tree stores it
// once.
func (s *Store) PutNodes(ctx context.Context, runID int64, item int, nodes []Node) error {
	if len(nodes) == 0 {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM trees WHERE run_id = ? AND item_idx = ?`, runID, item); err != nil {
			return fmt.Errorf("put nodes: %w", err)
		}
		return nil
	}
	w, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("put nodes: %w", err)
	}
	defer w.Rollback()
	if err := w.putTree(ctx, runID, item, nodes); err != nil {
		return err
	}
	return w.commit()
}

// putTree stores a tree.
func (w *writeTx) putTree(ctx context.Context, runID int64, item int, nodes []Node) error {
	id, err := w.putBlob(ctx, encodeNodes(nodes))
	if err != nil {
		return fmt.Errorf("put nodes: %w", err)
	}
	if _, err := w.s.exec(ctx, w, qTreePut, runID, item, id); err != nil {
		return fmt.Errorf("put nodes: %w", err)
	}
	return nil
}

// Nodes returns an item's tree ordered by node id.
func (s *Store) Nodes(ctx context.Context, runID int64, item int) ([]Node, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT b.data FROM trees t JOIN blobs b ON b.id = t.blob
		WHERE t.run_id = ? AND t.item_idx = ?`, runID, item).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("nodes of run %d item %d: %w", runID, item, err)
	}
	b, err := s.decode(ctx, s.db, data)
	if err != nil {
		return nil, fmt.Errorf("nodes of run %d item %d: %w", runID, item, err)
	}
	nodes, err := decodeNodes(b, runID, item)
	if err != nil {
		return nil, fmt.Errorf("nodes of run %d item %d: %w", runID, item, err)
	}
	slices.SortStableFunc(nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	return nodes, nil
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
	_, err := s.exec(ctx, s.db, qStepPut, st.RunID, st.Item, st.Trial, st.Step, st.Kind, st.Content)
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
