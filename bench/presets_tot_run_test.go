package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
)

// The tot-game24 presets run offline with a prompt folder holding the five
// Game of 24 texts; the run records the paper rule and the folder's pack,
// which makes it a different configuration from the bundled prompts.
func TestToTPresetRecordsRuleAndPack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "game24"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"io", "cot", "propose", "value", "value_last"} {
		text, _ := lib.Text("game24/" + name)
		if err := os.WriteFile(filepath.Join(dir, "game24", name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := tempStore(t)
	eng := &Engine{Store: st}
	run := func(promptDir string) (ruleAndPack [2]string, key string) {
		cfg, err := ApplyPreset(DefaultConfig(), "tot-game24/tot-b1")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Range, cfg.PromptDir = "900:903", promptDir
		sum, err := eng.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.GetRun(ctx, sum.RunID)
		if err != nil {
			t.Fatal(err)
		}
		var spec recordedSpec
		if err := json.Unmarshal(r.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		if sum.Rule != "game24/paper" || !strings.HasPrefix(spec.Rule, "game24/paper: ") || sum.PromptPack != spec.PromptPack {
			t.Errorf("summary rule %q pack %q, spec rule %q pack %q", sum.Rule, sum.PromptPack, spec.Rule, spec.PromptPack)
		}
		if sum.N != 3 {
			t.Errorf("%d items", sum.N)
		}
		return [2]string{sum.Rule, sum.PromptPack}, r.ConfigKey
	}
	folder, folderKey := run(dir)
	bundled, bundledKey := run("")
	if !strings.HasPrefix(folder[1], "folder:") || bundled[1] != prompts.BundledPack {
		t.Errorf("packs %q and %q, want folder:HASH and bundled", folder[1], bundled[1])
	}
	if folderKey == bundledKey {
		t.Error("a prompt folder and the bundled prompts give the same config key")
	}
}
