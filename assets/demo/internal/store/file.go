package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/acme/shipd/internal/model"
)

// File is a Memory store that persists every write to a JSON file.
// Reads (Get, List, Len, NextID) are promoted from the embedded *Memory.
type File struct {
	*Memory
	path    string
	writeMu sync.Mutex
	retries int
}

type fileFormat struct {
	Version   int              `json:"version"`
	Seq       int              `json:"seq"`
	Shipments []model.Shipment `json:"shipments"`
}

// OpenFile loads path (if it exists) and returns a store writing back to it.
func OpenFile(path string) (*File, error) {
	f := &File{Memory: NewMemory(), path: path, retries: 3}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	var doc fileFormat
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("store: decode %s: %w", path, err)
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("store: %s has unsupported version %d", path, doc.Version)
	}
	f.Memory.restore(doc.Shipments, doc.Seq)
	return f, nil
}

// Path is the backing file.
func (f *File) Path() string { return f.path }

// NextID allocates an id and persists the sequence so ids are never reused.
func (f *File) NextID() string {
	id := f.Memory.NextID()
	// Best effort: the id is unique in this process either way, and the
	// next Put persists the sequence again.
	_ = f.flush()
	return id
}

// Put stores s and writes the file.
func (f *File) Put(s model.Shipment) error {
	if err := f.Memory.Put(s); err != nil {
		return err
	}
	return f.flush()
}

// Insert adds s (which must be new) and writes the file.
func (f *File) Insert(s model.Shipment) error {
	if err := f.Memory.Insert(s); err != nil {
		return err
	}
	return f.flush()
}

// flush writes the whole store atomically (temp file + rename), retrying
// transient failures with a short backoff.
func (f *File) flush() error {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	items, seq := f.Memory.snapshot()
	raw, err := json.MarshalIndent(fileFormat{Version: 1, Seq: seq, Shipments: items}, "", "  ")
	if err != nil {
		return err
	}
	write := func() error {
		tmp, err := os.CreateTemp(filepath.Dir(f.path), ".shipd-*.json")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name())
		if _, err := tmp.Write(raw); err != nil {
			tmp.Close()
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Rename(tmp.Name(), f.path)
	}
	return retry(f.retries, 5*time.Millisecond, write)
}

func retry(attempts int, backoff time.Duration, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
		time.Sleep(backoff * time.Duration(i+1))
	}
	return fmt.Errorf("store: giving up after %d attempts: %w", attempts, err)
}
