package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// simCard is bench serve-sim's entry in each of its /v1/models cards.
type simCard struct {
	Params sim.Params `json:"params"`
	// AnyName: the server answers any model name (no
	// --served-model-name); otherwise only the names it lists.
	AnyName bool `json:"any_model_name"`
}

// SimCard is what bench serve-sim says of itself: the field merged into
// its /v1/models entries (its parameters under llm.SimCardField) and the
// system_fingerprint of its every answer, which names the simulator and
// its parameters.
func SimCard(p sim.Params, anyName bool) (map[string]any, string) {
	b, _ := json.Marshal(p)
	h := sha256.Sum256(b)
	return map[string]any{llm.SimCardField: simCard{Params: p, AnyName: anyName}}, "fp_reasonbench_sim_" + hex.EncodeToString(h[:5])
}
