package tasks

// ContextRenderer is implemented by tasks whose prompts can show reading
// material with the question (HotpotQA's paragraphs). Strategies that render
// prompts offer a context parameter naming one of the modes; the rendered
// text is {{.Context}} in the templates.
type ContextRenderer interface {
	// Contexts lists the modes RenderContext understands, the default first
	// (HotpotQA: gold, distractor, none).
	Contexts() []string
	// RenderContext returns the text shown for inst under mode; "" shows
	// nothing.
	RenderContext(inst Instance, mode string) (string, error)
}
