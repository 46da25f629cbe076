package catalog

// LATSPresets are the LATS paper's HotpotQA configuration (Zhou et al.,
// 2024, "Language Agent Tree Search", GPT-3.5 row of its HotpotQA table),
// as its reference code runs it (lapisrocks/LanguageAgentTreeSearch):
//
//   - n = 5 sampled next steps per expansion, 1 value sample per state,
//     temperature 1.0: hotpot/lats.sh lines 9, 10 and 13
//     (--n_generate_sample 5, --n_evaluate_sample 1, --temperature 1.0);
//   - 50 rollouts per question: hotpot/run.py line 49, the --iterations
//     default;
//   - depth 7: hotpot/lats.py, expand_node and rollout (max_depth=7);
//   - UCT value/visits + sqrt(2·ln N/n): hotpot/lats.py, Node.uct, which is
//     c = √2;
//   - the oracle evaluator: the environment's reward is exact match with
//     the gold answer (hotpot/lats.py generate_new_states, r == 1).
//
// Its 100 questions are drawn from HotpotQA's train split through a
// Wikipedia API; ours are the 100 bundled distractor-setting dev questions
// over a local docstore of their paragraphs.
func LATSPresets() []Preset {
	return []Preset{
		{Name: "lats-hotpotqa/gpt35-setting", Doc: "LATS on HotpotQA: n=5, 50 rollouts, depth 7, c=√2, oracle evaluator, up to 3 reflections",
			Task: "hotpotqa", Strategy: "lats", Range: "0:100",
			Params: map[string]any{"n_generate": 5, "n_evaluate": 1, "iterations": 50, "max_depth": 7,
				"c": 1.4142135623730951, "evaluator": "oracle", "max_reflections": 3, "temperature": 1.0}},
	}
}
