package catalog

import "github.com/reasonbench/reasonbench/strategies/param"

// debateMathPreset is the debate reference's arithmetic setting
// (math/gen_math.py): 2 agents, 3 rounds, no temperature, its 100
// questions (task arithmetic-debate), scored by its own rule.
func debateMathPreset() Preset {
	return Preset{Name: "debate-arithmetic/reference", Doc: "multi-agent debate as gen_math.py: 2 agents, 3 rounds, no temperature sent, its 100 questions a+b*c+d-e*f (numpy seed 0), scored by its rule (debate-arithmetic); its prompts with --prompts from `bench prompts import --from debate`",
		Task: "arithmetic-debate", Strategy: "debate", Range: "0:100", Rule: "debate-arithmetic",
		Params: map[string]any{"agents": 2, "rounds": 3, "temperature": param.ModelDefaultValue}}
}
