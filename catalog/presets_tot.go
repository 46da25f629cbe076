package catalog

// totPresets are the five rows of the ToT paper's Game of 24 table (Yao et
// al. 2023, table 2) on its hard set (puzzles 900-999), temperature 0.7,
// scored by the paper's rule; the ToT rows replay the reference
// implementation's search (protocol=reference), whose run-wide value cache
// makes a puzzle depend on the puzzles before it: their puzzles run one at
// a time, in order.
func totPresets() []Preset {
	const hard = "900:1000"
	tot := func(b int) map[string]any {
		return map[string]any{"protocol": "reference", "generate": "propose", "evaluate": "value", "n_evaluate": 3,
			"select": "greedy", "b": b, "temperature": 0.7, "value_cache": "run"}
	}
	return []Preset{
		{Name: "tot-game24/io", Doc: "IO prompt, 100 samples (best of 100 and mean)", Task: "game24", Strategy: "io", Range: hard,
			Params: map[string]any{"k": 100, "temperature": 0.7}, Rule: "paper"},
		{Name: "tot-game24/cot", Doc: "CoT prompt, 100 samples", Task: "game24", Strategy: "cot", Range: hard,
			Params: map[string]any{"k": 100, "temperature": 0.7}, Rule: "paper"},
		{Name: "tot-game24/cotsc", Doc: "CoT-SC, majority of 100 chains", Task: "game24", Strategy: "cotsc", Range: hard,
			Params: map[string]any{"k": 100, "temperature": 0.7, "vote_key": "line"}, Rule: "paper"},
		{Name: "tot-game24/tot-b1", Doc: "ToT BFS as the reference code: propose + value (n_evaluate 3, run-wide value cache: puzzles one at a time, in order), greedy, b=1", Task: "game24", Strategy: "tot", Range: hard,
			Params: tot(1), Rule: "paper"},
		{Name: "tot-game24/tot-b5", Doc: "ToT BFS as the reference code: propose + value (n_evaluate 3, run-wide value cache: puzzles one at a time, in order), greedy, b=5", Task: "game24", Strategy: "tot", Range: hard,
			Params: tot(5), Rule: "paper"},
	}
}
