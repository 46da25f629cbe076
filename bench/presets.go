package bench

import (
	"fmt"
	"maps"
	"strings"

	"github.com/reasonbench/reasonbench/catalog"
)

// Preset is a named configuration from a paper; the presets live in the
// catalog (catalog/presets_NAME.go), one file per paper.
type Preset = catalog.Preset

// Presets lists the paper configurations `bench run --preset` knows.
func Presets() []Preset { return catalog.Presets() }

// LATSPresets are the LATS paper's HotpotQA configuration (catalog).
func LATSPresets() []Preset { return catalog.LATSPresets() }

// ReflexionPresets are the Reflexion paper's HotpotQA runs (catalog).
func ReflexionPresets() []Preset { return catalog.ReflexionPresets() }

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
