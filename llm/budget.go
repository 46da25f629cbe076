package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrMaxCost is returned for calls refused because a Budget is spent.
var ErrMaxCost = errors.New("max-cost reached")

// MaxCostError says which ceiling refused a call and what had been spent.
type MaxCostError struct{ Max, Spent float64 }

func (e MaxCostError) Error() string {
	return fmt.Sprintf("max-cost $%.2f reached ($%.4f spent)", e.Max, e.Spent)
}

func (e MaxCostError) Is(target error) bool { return target == ErrMaxCost }

// Budget is a spending ceiling shared by every call of a run. Calls that
// reach the model add their cost; once the total reaches the ceiling no
// new call starts, while calls already in flight finish and are counted.
type Budget struct {
	max   float64 // <= 0: no ceiling
	mu    sync.Mutex
	spent float64
}

// NewBudget returns a budget with ceiling max (USD; <= 0 for none) of which
// spent is already used (by earlier sessions of the same run).
func NewBudget(max, spent float64) *Budget { return &Budget{max: max, spent: spent} }

// Max returns the ceiling (<= 0: none).
func (b *Budget) Max() float64 { return b.max }

// Spent returns the cost counted so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Exhausted reports whether the ceiling has been reached.
func (b *Budget) Exhausted() bool { return b.err() != nil }

func (b *Budget) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max > 0 && b.spent >= b.max {
		return MaxCostError{Max: b.max, Spent: b.spent}
	}
	return nil
}

// Gate refuses calls once the ceiling is reached, before they are recorded
// or looked up in the cache: the outermost layer of an item's sampler.
func (b *Budget) Gate() Middleware {
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			if err := b.err(); err != nil {
				return Response{}, err
			}
			return next.Sample(ctx, req)
		})
	}
}

// Meter counts the cost of the calls that pass through it and refuses new
// ones once the ceiling is reached. It belongs just inside the concurrency
// limit, so a call that waited for a slot is checked when it would start.
func (b *Budget) Meter() Middleware {
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			if err := b.err(); err != nil {
				return Response{}, err
			}
			resp, err := next.Sample(ctx, req)
			b.mu.Lock()
			b.spent += resp.Usage.Cost
			b.mu.Unlock()
			return resp, err
		})
	}
}
