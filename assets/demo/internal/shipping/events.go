package shipping

import (
	"sync"
	"time"

	"github.com/acme/shipd/internal/model"
)

// Event is emitted whenever a shipment changes.
type Event struct {
	At         time.Time
	ShipmentID string
	Owner      string
	Status     model.Status
	Actor      string
}

// EventSink receives shipment events.
type EventSink interface {
	Emit(Event)
}

// EventLog records events and fans them out to subscribers.
type EventLog struct {
	mu          sync.Mutex
	events      []Event
	subscribers []func(Event)
}

// Emit implements EventSink.
func (l *EventLog) Emit(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	subs := make([]func(Event), len(l.subscribers))
	copy(subs, l.subscribers)
	l.mu.Unlock()
	for _, fn := range subs {
		fn(e)
	}
}

// Subscribe registers fn for future events.
func (l *EventLog) Subscribe(fn func(Event)) {
	l.mu.Lock()
	l.subscribers = append(l.subscribers, fn)
	l.mu.Unlock()
}

// Events returns a copy of everything emitted so far.
func (l *EventLog) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// discard drops events; the default sink.
type discard struct{}

func (discard) Emit(Event) {}
