package bench

import (
	"fmt"
	"maps"
	"strings"
)

// Preset is a named configuration from a paper.
type Preset struct {
	Name     string
	Doc      string
	Task     string
	Strategy string
	Range    string
	Params   map[string]any
}

// Presets lists the paper configurations `bench run --preset` knows: the
// five rows of the ToT paper's Game of 24 table (Yao et al. 2023, table 2),
// on its hard set (puzzles 900-999), temperature 0.7.
func Presets() []Preset {
	const hard = "900:1000"
	presets := []Preset{
		{Name: "tot-game24/io", Doc: "IO prompt, 100 samples (best of 100 and mean)", Task: "game24", Strategy: "io", Range: hard,
			Params: map[string]any{"k": 100, "temperature": 0.7}},
		{Name: "tot-game24/cot", Doc: "CoT prompt, 100 samples", Task: "game24", Strategy: "cot", Range: hard,
			Params: map[string]any{"k": 100, "temperature": 0.7}},
		{Name: "tot-game24/cotsc", Doc: "CoT-SC, majority of 100 chains", Task: "game24", Strategy: "cotsc", Range: hard,
			Params: map[string]any{"k": 100, "temperature": 0.7, "vote_key": "line"}},
		{Name: "tot-game24/tot-b1", Doc: "ToT BFS, propose + value (n_evaluate 3), greedy, b=1", Task: "game24", Strategy: "tot", Range: hard,
			Params: map[string]any{"generate": "propose", "evaluate": "value", "n_evaluate": 3, "select": "greedy", "b": 1, "temperature": 0.7}},
		{Name: "tot-game24/tot-b5", Doc: "ToT BFS, propose + value (n_evaluate 3), greedy, b=5", Task: "game24", Strategy: "tot", Range: hard,
			Params: map[string]any{"generate": "propose", "evaluate": "value", "n_evaluate": 3, "select": "greedy", "b": 5, "temperature": 0.7}},
	}
	presets = append(presets, LATSPresets()...)
	return presets
}

// ApplyPreset fills cfg from the named preset; parameters already in
// cfg.Params (from --set) win over the preset's.
func ApplyPreset(cfg Config, name string) (Config, error) {
	var names []string
	for _, p := range Presets() {
		if p.Name != name {
			names = append(names, p.Name)
			continue
		}
		if cfg.Task != "" && cfg.Task != p.Task {
			return cfg, fmt.Errorf("--preset %s runs task %s, not %s", name, p.Task, cfg.Task)
		}
		if cfg.Strategy != "" && cfg.Strategy != p.Strategy {
			return cfg, fmt.Errorf("--preset %s runs strategy %s, not %s", name, p.Strategy, cfg.Strategy)
		}
		cfg.Task, cfg.Strategy = p.Task, p.Strategy
		if cfg.Range == "" {
			cfg.Range = p.Range
		}
		params := maps.Clone(p.Params)
		maps.Copy(params, cfg.Params)
		cfg.Params = params
		return cfg, nil
	}
	return cfg, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(names, ", "))
}
