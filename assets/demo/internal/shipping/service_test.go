package shipping_test

import (
	"errors"
	"testing"
	"time"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/model"
	"github.com/acme/shipd/internal/shipping"
	"github.com/acme/shipd/internal/store"
)

var monday = time.Date(2024, 1, 8, 9, 0, 0, 0, time.UTC)

type fixture struct {
	svc    *shipping.Service
	clock  *shipping.FixedClock
	events *shipping.EventLog
	alice  string
	bob    string
	ops    string
}

func token(t *testing.T, subject string, roles ...string) string {
	t.Helper()
	tok, err := auth.IssueToken(subject, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func setup(t *testing.T) fixture {
	t.Helper()
	clock := shipping.NewFixedClock(monday)
	events := &shipping.EventLog{}
	return fixture{
		svc:    shipping.NewService(store.NewMemory(), clock, shipping.WithEvents(events)),
		clock:  clock,
		events: events,
		alice:  token(t, "user:1", "customer"),
		bob:    token(t, "user:2", "customer"),
		ops:    token(t, "user:3", "admin"),
	}
}

func request() shipping.CreateRequest {
	return shipping.CreateRequest{
		OrderRef: "order-42",
		To:       model.Address{Name: "Ada", Line1: "1 Engine Way", City: "Springfield", Postcode: "12345", Country: "US"},
		Parcel:   model.Parcel{WeightGrams: 1200, LengthCm: 20, WidthCm: 15, HeightCm: 10},
	}
}

func TestQuote(t *testing.T) {
	f := setup(t)
	p := model.Parcel{WeightGrams: 1500}
	us := request().To
	q, err := f.svc.Quote(f.alice, p, us, "express")
	if err != nil {
		t.Fatal(err)
	}
	if q.Cost != 1499+2*250 || !q.ETA.Equal(monday.AddDate(0, 0, 1)) {
		t.Fatalf("express quote %+v", q)
	}
	cheapest, _ := f.svc.Quote(f.alice, p, us, "")
	if cheapest.Service != "economy" {
		t.Fatalf("cheapest = %s", cheapest.Service)
	}
	abroad := us
	abroad.Country = "DE"
	if q, _ := f.svc.Quote(f.alice, p, abroad, ""); q.Service != "global" {
		t.Fatalf("international cheapest = %s", q.Service)
	}
	if _, err := f.svc.Quote(f.alice, p, abroad, "standard"); !errors.Is(err, shipping.ErrInvalid) {
		t.Fatalf("standard abroad: %v", err)
	}
	if _, err := f.svc.Quote("bogus", p, us, ""); err == nil {
		t.Fatal("quote without valid token")
	}
}

func TestFridayQuoteSkipsWeekend(t *testing.T) {
	f := setup(t)
	f.clock.Advance(4 * 24 * time.Hour) // Friday
	q, err := f.svc.Quote(f.alice, model.Parcel{WeightGrams: 100}, request().To, "express")
	if err != nil {
		t.Fatal(err)
	}
	if q.ETA.Weekday() != time.Monday {
		t.Fatalf("ETA on %s", q.ETA.Weekday())
	}
}

func TestCreateAndRead(t *testing.T) {
	f := setup(t)
	created, err := f.svc.Create(f.alice, request())
	if err != nil {
		t.Fatal(err)
	}
	if created.Owner != "user:1" || created.Service != "standard" || created.Status != model.StatusCreated {
		t.Fatalf("created %+v", created)
	}
	// Volumetric weight 20*15*10/5 = 600 g < 1200 g actual -> 2 kg billed.
	if created.Cost != 599+2*120 {
		t.Fatalf("cost %s", created.Cost)
	}
	if _, err := f.svc.Get(f.bob, created.ID); !errors.Is(err, shipping.ErrNotFound) {
		t.Fatalf("bob saw alice's shipment: %v", err)
	}
	if got, err := f.svc.Get(f.ops, created.ID); err != nil || got.ID != created.ID {
		t.Fatalf("ops Get: %v", err)
	}
	mine, _ := f.svc.List(f.alice)
	theirs, _ := f.svc.List(f.bob)
	all, _ := f.svc.List(f.ops)
	if len(mine) != 1 || len(theirs) != 0 || len(all) != 1 {
		t.Fatalf("list sizes %d/%d/%d", len(mine), len(theirs), len(all))
	}
	if got := f.events.Events(); len(got) != 1 || got[0].Actor != "user:1" {
		t.Fatalf("events %+v", got)
	}
}

func TestCreateValidation(t *testing.T) {
	f := setup(t)
	req := request()
	req.OrderRef = ""
	if _, err := f.svc.Create(f.alice, req); !errors.Is(err, shipping.ErrInvalid) {
		t.Fatalf("missing order ref: %v", err)
	}
	req = request()
	req.To.Country = "USA"
	if _, err := f.svc.Create(f.alice, req); !errors.Is(err, shipping.ErrInvalid) {
		t.Fatalf("bad country: %v", err)
	}
	req = request()
	req.Service = "express"
	req.Parcel.WeightGrams = 15000
	if _, err := f.svc.Create(f.alice, req); !errors.Is(err, shipping.ErrInvalid) {
		t.Fatalf("overweight express: %v", err)
	}
	if _, err := f.svc.Create("", request()); !errors.Is(err, auth.ErrMissing) {
		t.Fatalf("no token: %v", err)
	}
}

func TestLifecycle(t *testing.T) {
	f := setup(t)
	s, _ := f.svc.Create(f.alice, request())
	if _, err := f.svc.Advance(f.alice, s.ID, model.StatusPickedUp, ""); !errors.Is(err, auth.ErrForbidden) {
		t.Fatalf("customer advanced shipment: %v", err)
	}
	steps := []model.Status{model.StatusPickedUp, model.StatusInTransit, model.StatusInTransit, model.StatusDelivered}
	for _, status := range steps {
		f.clock.Advance(6 * time.Hour)
		if _, err := f.svc.Advance(f.ops, s.ID, status, "scan"); err != nil {
			t.Fatalf("advance to %s: %v", status, err)
		}
	}
	events, err := f.svc.Track(f.alice, s.ID)
	if err != nil || len(events) != 5 {
		t.Fatalf("track: %d events, %v", len(events), err)
	}
	if _, err := f.svc.Track(f.bob, s.ID); !errors.Is(err, auth.ErrForbidden) {
		t.Fatalf("bob tracked alice's parcel: %v", err)
	}
	if _, err := f.svc.Cancel(f.alice, s.ID, ""); !errors.Is(err, shipping.ErrConflict) {
		t.Fatalf("cancel after delivery: %v", err)
	}
}

func TestCancelAndOverdue(t *testing.T) {
	f := setup(t)
	first, _ := f.svc.Create(f.alice, request())
	second, _ := f.svc.Create(f.alice, request())
	cancelled, err := f.svc.Cancel(f.alice, first.ID, "")
	if err != nil || cancelled.Status != model.StatusCancelled {
		t.Fatalf("cancel: %+v %v", cancelled, err)
	}
	if last, _ := cancelled.Last(); last.Note != "cancelled by user:1" {
		t.Fatalf("note %q", last.Note)
	}
	f.clock.Advance(10 * 24 * time.Hour)
	late, err := f.svc.Overdue(f.ops)
	if err != nil || len(late) != 1 || late[0].ID != second.ID {
		t.Fatalf("overdue = %+v, %v", late, err)
	}
	if _, err := f.svc.Overdue(f.alice); !errors.Is(err, auth.ErrForbidden) {
		t.Fatalf("customer saw overdue list: %v", err)
	}
}

func TestRatesValueReceiver(t *testing.T) {
	svc := shipping.NewService(store.NewMemory(), shipping.SystemClock{},
		shipping.WithRates(shipping.RateTable{"flat": {BaseCents: 100, MaxGrams: 1000}}))
	if got := svc.Rates().Services(); len(got) != 1 || got[0] != "flat" {
		t.Fatalf("services %v", got)
	}
}
