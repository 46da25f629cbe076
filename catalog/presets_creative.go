package catalog

// creativePresets are the ToT paper's Creative Writing runs (Yao et al.
// 2023, figure 5a) on its 100 inputs, temperature 1.0, scored by a judge's
// coherency (the mean of 5 judge samples): IO and CoT with 10 samples,
// and ToT as scripts/text/bfs.sh (depth 2, 5 CoT samples a state, 5 votes,
// greedy b=1).
func creativePresets() []Preset {
	const all = "0:100"
	return []Preset{
		{Name: "tot-creative/io", Doc: "IO prompt, 10 samples, each judged", Task: "creative", Strategy: "io", Range: all,
			Params: map[string]any{"k": 10, "temperature": 1.0}},
		{Name: "tot-creative/cot", Doc: "CoT prompt (plan, then passage), 10 samples, each judged", Task: "creative", Strategy: "cot", Range: all,
			Params: map[string]any{"k": 10, "temperature": 1.0}},
		{Name: "tot-creative/tot", Doc: "ToT BFS as scripts/text/bfs.sh: 2 steps (plan, passage), 5 CoT samples a state, 5 votes, greedy b=1, T=1.0", Task: "creative", Strategy: "tot", Range: all,
			Params: map[string]any{"generate": "sample", "evaluate": "vote", "n_generate": 5, "n_evaluate": 5, "select": "greedy", "b": 1, "steps": 2, "temperature": 1.0}},
	}
}
