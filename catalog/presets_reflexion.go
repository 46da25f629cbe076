package catalog

// ReflexionPresets are the Reflexion paper's HotpotQA runs (Shinn et al.
// 2023), one per run folder of the reference's published logs
// (noahshinn/reflexion, hotpotqa_runs/root/<agent>/<context>/<strategy>),
// named from the folder, each with the number of trials its log holds. They
// run strategy reflexion_ref (the reference agents' protocol) over the 100
// questions of the reference's sample at temperature 0; the published
// runs used text-davinci-003 through /v1/completions (--api completions).
func ReflexionPresets() []Preset {
	const all = "0:100"
	p := func(folder, doc, agent, context, reflection string, trials int) Preset {
		params := map[string]any{"agent": agent, "reflection": reflection, "trials": trials, "temperature": 0.0}
		if agent == "cot" {
			params["context"] = context
		}
		return Preset{Name: "reflexion-hotpotqa/" + folder, Doc: doc, Task: "hotpotqa", Strategy: "reflexion_ref", Range: all, Params: params}
	}
	return []Preset{
		p("cot-context-reflexion", "CoT/context/reflexion: CoT agent with the supporting paragraphs, reflexion, 8 trials", "cot", "gold", "reflexion", 8),
		p("cot-context-last_trial", "CoT/context/last_trial: CoT agent with the supporting paragraphs, last trial shown, 5 trials", "cot", "gold", "last_attempt", 5),
		p("cot-no_context-reflexion", "CoT/no_context/reflexion: CoT agent without context, reflexion, 5 trials", "cot", "none", "reflexion", 5),
		p("cot-no_context-last_trial", "CoT/no_context/last_trial: CoT agent without context, last trial shown, 6 trials", "cot", "none", "last_attempt", 6),
		p("react-base", "ReAct/base: ReAct agent without reflection, 5 trials", "react", "", "none", 5),
		p("react-reflexion", "ReAct/reflexion: ReAct agent with reflexion, 7 trials", "react", "", "reflexion", 7),
	}
}
