package sandbox

import "context"

// Limit returns a runner that runs at most n programs at once on r (a
// run's --concurrency); the others wait their turn or their context.
func Limit(r Runner, n int) Runner {
	return &limited{r: r, sem: make(chan struct{}, max(1, n))}
}

type limited struct {
	r   Runner
	sem chan struct{}
}

func (l *limited) Run(ctx context.Context, p Program) (Result, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-l.sem }()
	return l.r.Run(ctx, p)
}

// Start starts a session on the runner l bounds, outside its bound.
func (l *limited) Start(ctx context.Context, p Program) (*Session, error) {
	if s, ok := l.r.(Starter); ok {
		return s.Start(ctx, p)
	}
	return nil, ErrNoSessions
}
