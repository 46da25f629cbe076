// Package search implements the two tree-search procedures of Tree of
// Thoughts (Yao et al. 2023) over an arbitrary state type S. It knows
// nothing about LLMs or tasks: callers supply a [Problem] whose Expand
// proposes child states and whose Evaluate scores a list of candidates.
//
// # BFS (beam search)
//
// The frontier starts as the root. At step t = 1..Steps every non-terminal
// frontier state is expanded (Expand once per frontier entry, run
// concurrently by up to Concurrency goroutines). The new children are
// gathered in frontier order, then child order, receive node IDs in that
// order, and are scored by a single Evaluate call (so both per-candidate
// "value" and all-at-once "vote" evaluators fit). Terminal frontier nodes
// are not expanded: they are carried into the step's candidate list, at
// their frontier position, with the value they already have (they are not
// re-evaluated). Then Beam candidates are selected:
//
//   - greedy: the Beam highest values; ties keep candidate order (a stable
//     sort, like Python's sorted(..., reverse=True) in the reference code);
//   - sample: Beam draws with replacement, probability proportional to
//     value (negative values count as 0; all zero means uniform). A node
//     drawn twice occupies two frontier slots and is expanded twice next
//     step, as in the reference code.
//
// The search stops early when no frontier entry can be expanded (all are
// terminal) or when the expansions of a step yield no child at all; the
// frontier is then kept as it was. A terminal node can leave the frontier
// only by being outranked; it always stays in the tree (see
// [Tree.Terminals]).
//
// # DFS
//
// Recursive from the root. Visiting a node marks it Selected; a terminal
// node is recorded as a solution candidate (Result.Final); if Solved
// reports true for a visited node (terminal or not) the whole search stops
// with Found. Terminal nodes and nodes at depth Steps are not expanded.
// Otherwise the node is expanded, its children are scored by one Evaluate
// call, children with value < Threshold are marked Pruned, and the rest are
// visited in order of value, highest first (stable), backtracking when they
// are exhausted. Each Expand call spends one unit of MaxSteps; when a node
// would need an expansion beyond the budget the search stops (Exhausted).
//
// # MCTS
//
// Monte Carlo tree search (as RAP and LATS use it): UCT selection,
// expansion, greedy or sampled rollouts, mean or max backup, an iteration
// budget, resumable from a saved [MCTSState]; see [MCTS]. Node.Visits,
// ReturnSum and ReturnMax keep every node's statistics in the Tree.
//
// Node IDs are assigned by the search goroutine in a fixed order, so equal
// inputs give equal trees regardless of goroutine scheduling. On error the
// partial result (tree, frontier or solutions so far) is returned with the
// error.
package search
