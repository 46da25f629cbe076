package catalog

import "github.com/reasonbench/reasonbench/strategies/param"

// debatePresets are the multi-agent debate reference's GSM8K setting
// (Du et al. 2023; composable-models/llm_multiagent_debate, gsm/gen_gsm.py):
// 3 agents, 2 rounds, one sample a call at the model's default
// temperature (the reference sends none), on its 100 questions (GSM8K's
// test split after Python's random.seed(0) and random.shuffle: task
// gsm8k-debate, range 0:100), scored as eval_gsm.py scores (rule
// debate-paper). The reference's prompts are imported from a checkout
// (bench prompts import --from debate CHECKOUT --out DIR, then --prompts
// DIR); without them the bundled templates of our own wording ask.
func debatePresets() []Preset {
	return []Preset{
		{Name: "debate-gsm8k/reference", Doc: "multi-agent debate as gen_gsm.py: 3 agents, 2 rounds, no temperature sent, the reference's 100 questions in its order, scored by eval_gsm.py's rule (debate-paper); its prompts with --prompts from `bench prompts import --from debate`",
			Task: "gsm8k-debate", Strategy: "debate", Range: "0:100", Rule: "debate-paper",
			Params: map[string]any{"agents": 3, "rounds": 2, "temperature": param.ModelDefaultValue}},
		debateMathPreset(),
	}
}
