package bench

import (
	"context"
	"encoding/json"
	"fmt"
)

// recordReplicas adds the calls each replica served in this session to the
// run's spec (a resumed run adds to what earlier sessions recorded).
func (e *Engine) recordReplicas(ctx context.Context, id int64, p *plan) error {
	stats := p.replicas.Stats()
	if len(stats) == 0 {
		return nil
	}
	run, err := e.Store.GetRun(ctx, id)
	if err != nil {
		return err
	}
	var spec recordedSpec
	if err := json.Unmarshal(run.Spec, &spec); err != nil {
		return fmt.Errorf("run %d: unreadable spec: %w", id, err)
	}
	for _, s := range stats {
		found := false
		for i := range spec.Replicas {
			if spec.Replicas[i].Name == s.Name {
				spec.Replicas[i].Served += s.Served
				spec.Replicas[i].Failed += s.Failed
				found = true
			}
		}
		if !found {
			spec.Replicas = append(spec.Replicas, s)
		}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	return e.Store.SetRunSpec(ctx, id, b)
}
