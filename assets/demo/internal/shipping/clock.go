package shipping

import (
	"sync"
	"time"
)

// Clock abstracts time so tests can control it.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the wall clock.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// FixedClock is a manually advanced clock for tests and replays.
type FixedClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFixedClock starts a FixedClock at t.
func NewFixedClock(t time.Time) *FixedClock { return &FixedClock{t: t} }

// Now implements Clock.
func (c *FixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *FixedClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
