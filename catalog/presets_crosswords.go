package catalog

// crosswordsPresets are the rows of the ToT paper's Mini Crosswords table
// (Yao et al. 2023, table 3) on its 20 test puzzles, temperature 0.7: IO
// and CoT with 10 samples, and the reference notebook's depth-first search
// with its ablations. "+best state" reads the solution to pick its output:
// an oracle, as the paper's row is.
func crosswordsPresets() []Preset {
	const all = "0:20"
	dfs := func(extra map[string]any) map[string]any {
		p := map[string]any{"n_generate": 8, "temperature": 0.7, "max_per_state": 3, "max_states": 100, "prune": true, "backtrack": true, "output": "deepest"}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	return []Preset{
		{Name: "tot-crosswords/io", Doc: "IO prompt, 10 samples (letter/word/game means over samples)", Task: "crosswords", Strategy: "io", Range: all,
			Params: map[string]any{"k": 10, "temperature": 0.7}, Rule: "paper"},
		{Name: "tot-crosswords/cot", Doc: "CoT prompt, 10 samples", Task: "crosswords", Strategy: "cot", Range: all,
			Params: map[string]any{"k": 10, "temperature": 0.7}, Rule: "paper"},
		{Name: "tot-crosswords/tot", Doc: "ToT DFS as the reference notebook: 8 proposal samples, sure/maybe/impossible checks, pruning, backtracking, 3 children a state, 100 states; output the first deepest state", Task: "crosswords", Strategy: "tot_dfs", Range: all,
			Params: dfs(nil), Rule: "paper"},
		{Name: "tot-crosswords/tot-no-prune", Doc: "ToT DFS without pruning (the paper's -prune)", Task: "crosswords", Strategy: "tot_dfs", Range: all,
			Params: dfs(map[string]any{"prune": false}), Rule: "paper"},
		{Name: "tot-crosswords/tot-no-backtrack", Doc: "the notebook's greedy fill: 5 proposal samples a step, the best non-conflicting candidate, 20 steps (the paper's -backtrack)", Task: "crosswords", Strategy: "tot_dfs", Range: all,
			Params: dfs(map[string]any{"backtrack": false, "n_generate": 5, "greedy_steps": 20}), Rule: "paper"},
		{Name: "tot-crosswords/tot-best-state", Doc: "ORACLE: the ToT DFS outputting the first state with the highest word score, read from the solution (the paper's +best state)", Task: "crosswords", Strategy: "tot_dfs", Range: all,
			Params: dfs(map[string]any{"output": "best_word"}), Rule: "paper"},
	}
}
