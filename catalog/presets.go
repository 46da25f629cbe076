package catalog

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
	presets = append(presets, tauPresets()...)
	return append(presets, LATSPresets()...)
}
