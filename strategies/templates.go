package strategies

// The templates each strategy renders (Spec.Templates), by the names
// render resolves under the task's folders (tasks.TemplateName). The engine
// refuses a run whose task lacks one before the run is stored, instead of
// failing every item.

// Probe is a small configuration that exercises a strategy: the
// determinism, identity and completions tests run every registry probe,
// so a new strategy is tested by declaring one.
type Probe struct {
	Task, Range string
	Params      map[string]any
}

// fixedTemplates declares templates every configuration renders.
func fixedTemplates(names ...string) func(Values) []string {
	return func(Values) []string { return names }
}

// thoughtTemplates are the templates of tot's and mcts's modes that have
// one name on every task. A thought space renders its own prompts and names
// the sampling and voting ones per task (game24's cot and vote, HotpotQA's
// tot_sample and tot_vote), so those are not declared here; the modes a
// task offers are checked by CheckTask (tasks.ThoughtModes).
func thoughtTemplates(v Values) []string {
	var out []string
	if v.String("generate") == "propose" {
		out = append(out, "propose")
	}
	if v.String("evaluate") == "value" {
		out = append(out, "value")
	}
	return out
}

func reactTemplates(v Values) []string {
	v = v.WithDefaults(reactParams)
	if t := v.String("tools"); t == ToolsPython || t == ToolsTaskPython {
		return []string{"react_python"}
	}
	return []string{"react_" + v.String("protocol")}
}

func reflexionTemplates(v Values) []string {
	var out []string
	if v.String("actor") == ActorReAct {
		out = append(out, "reflexion_react_"+v.String("protocol"))
	} else {
		out = append(out, "reflexion_cot")
	}
	if v.String("evaluator") == EvaluatorSelf {
		out = append(out, "self_eval")
	}
	if r := v.String("reflection"); (r == ReflectReflexion || r == ReflectLastAttemptAndReflexion) && v.Int("trials") > 1 {
		out = append(out, "reflect")
	}
	return out
}

func reflexionRefTemplates(v Values) []string {
	s := &reflexionRef{agent: v.String("agent"), context: v.String("context"), reflection: v.String("reflection")}
	t := s.templates()
	out := []string{t.agent, t.examples, "ref_correct", "ref_incorrect"}
	if t.reflect != "" {
		out = append(out, t.reflect, t.reflectExamples)
	}
	if s.agent == RefAgentReAct {
		out = append(out, "ref_react_invalid")
	}
	// ref_truncated is optional: without it the marker is "[truncated]".
	switch s.reflection {
	case ReflectLastAttempt:
		out = append(out, "ref_last_trial_header")
	case ReflectReflexion:
		out = append(out, "ref_reflection_header")
	case ReflectLastAttemptAndReflexion:
		out = append(out, "ref_last_trial_header", "ref_reflection_after_last_trial_header")
	}
	return out
}

func reflexionCodeTemplates(v Values) []string {
	prefix := "reflexion_code_"
	current := v.String("version") == CodeVersionCurrent
	if current {
		prefix += "current_"
	}
	names := []string{"simple_system"}
	if current {
		names = append(names, "codeblock")
	}
	if v.String("strategy") == "reflexion" {
		names = append(names, "tests_system", "tests_examples")
		if v.Int("max_iters") > 1 { // improvements: a reflection, then an implementation
			names = append(names, "reflexion_system", "reflect_system")
			if current {
				names = append(names, "reflexion_examples", "reflect_examples")
			}
		}
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

func selfRefineTemplates(v Values) []string {
	switch v.WithDefaults(selfRefineParams).String("protocol") {
	case RefinePAL:
		return []string{"pal", "pal_feedback"}
	case RefineCode:
		return []string{"selfrefine_code_init", "selfrefine_code_feedback", "selfrefine_code_refine"}
	}
	return []string{"cot", "feedback", "refine"}
}
