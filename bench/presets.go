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
	// Rule names the task's scoring rule the preset runs with ("" for the
	// task's default).
	Rule string
}

// Presets lists the paper configurations `bench run --preset` knows, one
// file per paper (presets_NAME.go).
func Presets() []Preset {
	presets := append(totPresets(), ReflexionPresets()...)
	presets = append(presets, scPresets()...)
	presets = append(presets, crosswordsPresets()...)
	presets = append(presets, creativePresets()...)
	presets = append(presets, reflexionCodePresets()...)
	presets = append(presets, selfRefinePresets()...)
	presets = append(presets, debatePresets()...)
	return append(presets, LATSPresets()...)
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
		if cfg.Rule == "" {
			cfg.Rule = p.Rule
		}
		return cfg, nil
	}
	return cfg, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(names, ", "))
}
