package render

import (
	"bytes"
	"strings"
	"testing"
)

// Columns for how the model was called and its reasoning tokens appear
// only when some run has them, and a temperature left to the model gets a
// note; configurations with other model parameters are not pooled.
func TestModelColumnsAndNotes(t *testing.T) {
	plain := Row{RunID: 1, Task: "game24", Strategy: "cotsc", Params: "k=5", Model: "m", Status: "done", N: 10, Accuracy: 0.5,
		Tokens: 1000, CompletionTokens: 400, Calls: 10}
	for _, format := range []string{"md", "csv", "latex"} {
		var b bytes.Buffer
		if err := Write(&b, format, []Row{plain}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "reasoning") || strings.Contains(out, "model params") || strings.Contains(out, "temperature=default:") {
			t.Errorf("%s: columns or notes without cause:\n%s", format, out)
		}
	}

	thinking := plain
	thinking.RunID, thinking.Params, thinking.ModelParams, thinking.ReasoningTokens = 2, "k=5 temperature=default", "reasoning_effort=high", 250
	var b bytes.Buffer
	if err := Write(&b, "md", []Row{plain, thinking}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"model params", "reasoning_effort=high", "| completion | reasoning |", "|        400 |       250 |", TemperatureDefaultNote} {
		if !strings.Contains(out, want) {
			t.Errorf("run table lacks %q:\n%s", want, out)
		}
	}

	groups := Pivot([]Row{plain, thinking}, Level)
	if len(groups) != 2 {
		t.Fatalf("runs with other model parameters pooled: %d groups", len(groups))
	}
	b.Reset()
	if err := WriteExperiment(&b, "md", "t", groups); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{"model params", "completion/item", "reasoning/item", "25", TemperatureDefaultNote} {
		if !strings.Contains(out, want) {
			t.Errorf("experiment table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := WriteExperiment(&b, "csv", "t", groups); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "model_params,completion_tokens_per_item,reasoning_tokens_per_item") {
		t.Errorf("csv header:\n%s", b.String())
	}
}
