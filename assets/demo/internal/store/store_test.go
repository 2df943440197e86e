package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acme/shipd/internal/model"
	"github.com/acme/shipd/internal/shipping"
	"github.com/acme/shipd/internal/store"
)

// Both backends must satisfy the interface the service depends on.
var (
	_ shipping.Store = (*store.Memory)(nil)
	_ shipping.Store = (*store.File)(nil)
)

func shipment(id, owner string, created time.Time) model.Shipment {
	s := model.Shipment{ID: id, Owner: owner, OrderRef: "order-" + id, CreatedAt: created}
	s.Record(created, model.StatusCreated, "label created")
	return s
}

func backends(t *testing.T) map[string]func() shipping.Store {
	dir := t.TempDir()
	return map[string]func() shipping.Store{
		"memory": func() shipping.Store { return store.NewMemory() },
		"file": func() shipping.Store {
			f, err := store.OpenFile(filepath.Join(dir, "shipments.json"))
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
	}
}

func TestStoreContract(t *testing.T) {
	base := time.Date(2024, 1, 8, 9, 0, 0, 0, time.UTC)
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st := open()
			a, b := st.NextID(), st.NextID()
			if a == b {
				t.Fatalf("NextID repeated %s", a)
			}
			if err := st.Put(shipment(b, "user:1", base.Add(time.Hour))); err != nil {
				t.Fatal(err)
			}
			if err := st.Put(shipment(a, "user:1", base)); err != nil {
				t.Fatal(err)
			}
			if err := st.Put(shipment("SHP-X", "user:2", base)); err != nil {
				t.Fatal(err)
			}
			mine, _ := st.List("user:1")
			if len(mine) != 2 || mine[0].ID != a {
				t.Fatalf("List(user:1) = %+v", mine)
			}
			all, _ := st.List("")
			if len(all) != 3 {
				t.Fatalf("List(all) has %d items", len(all))
			}
			got, err := st.Get(a)
			if err != nil || got.OrderRef != "order-"+a {
				t.Fatalf("Get = %+v, %v", got, err)
			}
			got.Events[0].Note = "mutated"
			again, _ := st.Get(a)
			if again.Events[0].Note != "label created" {
				t.Fatal("Get returned shared event slice")
			}
			if _, err := st.Get("missing"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("missing: %v", err)
			}
			if err := st.Put(model.Shipment{}); err == nil {
				t.Fatal("Put accepted a shipment without id")
			}
		})
	}
}

func TestFilePersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shipments.json")
	f, err := store.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	id := f.NextID()
	if err := f.Insert(shipment(id, "user:9", time.Unix(1700000000, 0).UTC())); err != nil {
		t.Fatal(err)
	}
	if err := f.Insert(shipment(id, "user:9", time.Now())); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate insert: %v", err)
	}
	reopened, err := store.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Len and Get are promoted from the embedded *Memory.
	if reopened.Len() != 1 {
		t.Fatalf("reopened store has %d items", reopened.Len())
	}
	if got, err := reopened.Get(id); err != nil || got.Owner != "user:9" {
		t.Fatalf("Get after reopen = %+v, %v", got, err)
	}
	if next := reopened.NextID(); next == id {
		t.Fatalf("id %s reused after reopen", next)
	}
}

func TestOpenFileRejectsCorruptData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(`{"version": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenFile(path); err == nil {
		t.Fatal("accepted unsupported version")
	}
	if err := os.WriteFile(path, []byte(`not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenFile(path); err == nil {
		t.Fatal("accepted invalid JSON")
	}
}
