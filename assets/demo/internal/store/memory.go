// Package store provides the persistence backends for shipments: an
// in-memory map (Memory) and a JSON file that embeds it (File). Both satisfy
// shipping.Store.
package store

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/acme/shipd/internal/model"
)

var (
	ErrNotFound = errors.New("store: shipment not found")
	ErrConflict = errors.New("store: shipment already exists")
)

// Memory keeps shipments in a map guarded by a mutex.
type Memory struct {
	mu    sync.RWMutex
	items map[string]model.Shipment
	seq   int
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{items: make(map[string]model.Shipment)}
}

// NextID allocates a new shipment id.
func (m *Memory) NextID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	return fmt.Sprintf("SHP-%05d", m.seq)
}

// Get returns a copy of the shipment with id.
func (m *Memory) Get(id string) (model.Shipment, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s, ok := m.items[id]
	if !ok {
		return model.Shipment{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return clone(s), nil
}

// Put inserts or replaces a shipment.
func (m *Memory) Put(s model.Shipment) error {
	if s.ID == "" {
		return fmt.Errorf("store: shipment without id")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items[s.ID] = clone(s)
	return nil
}

// Insert adds a shipment that must not exist yet.
func (m *Memory) Insert(s model.Shipment) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.items[s.ID]; exists {
		return fmt.Errorf("%w: %s", ErrConflict, s.ID)
	}
	m.items[s.ID] = clone(s)
	return nil
}

// List returns owner's shipments (all when owner is ""), oldest first.
func (m *Memory) List(owner string) ([]model.Shipment, error) {
	m.mu.RLock()
	out := make([]model.Shipment, 0, len(m.items))
	for _, s := range m.items {
		if owner == "" || s.Owner == owner {
			out = append(out, clone(s))
		}
	}
	m.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].ID < out[j].ID
		}
		return out[i].CreatedAt.Before(out[j].CreatedAt)
	})
	return out, nil
}

// Len returns the number of stored shipments.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.items)
}

func (m *Memory) snapshot() ([]model.Shipment, int) {
	all, _ := m.List("")
	m.mu.RLock()
	defer m.mu.RUnlock()
	return all, m.seq
}

func (m *Memory) restore(items []model.Shipment, seq int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items = make(map[string]model.Shipment, len(items))
	for _, s := range items {
		m.items[s.ID] = s
	}
	m.seq = seq
}

func clone(s model.Shipment) model.Shipment {
	s.Events = append([]model.Event(nil), s.Events...)
	return s
}
