package shipping

import (
	"fmt"
	"sort"
	"time"

	"github.com/acme/shipd/internal/model"
)

// Rate prices one service level.
type Rate struct {
	BaseCents     model.Cents
	PerKgCents    model.Cents
	TransitDays   int
	MaxGrams      int
	International bool
}

// RateTable maps service names ("standard", "express", ...) to rates.
type RateTable map[string]Rate

// Quote is a priced offer for a parcel.
type Quote struct {
	Service string      `json:"service"`
	Cost    model.Cents `json:"cost"`
	ETA     time.Time   `json:"eta"`
}

// HomeCountry is where the warehouse ships from.
const HomeCountry = "US"

// DefaultRates is the production rate card.
func DefaultRates() RateTable {
	return RateTable{
		"economy":  {BaseCents: 399, PerKgCents: 80, TransitDays: 7, MaxGrams: 20000},
		"standard": {BaseCents: 599, PerKgCents: 120, TransitDays: 4, MaxGrams: 30000},
		"express":  {BaseCents: 1499, PerKgCents: 250, TransitDays: 1, MaxGrams: 10000},
		"global":   {BaseCents: 2499, PerKgCents: 900, TransitDays: 10, MaxGrams: 20000, International: true},
	}
}

// Services lists the service names, sorted.
func (t RateTable) Services() []string {
	names := make([]string, 0, len(t))
	for name := range t {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Quote prices parcel p to address to with service, from time at.
func (t RateTable) Quote(service string, p model.Parcel, to model.Address, at time.Time) (Quote, error) {
	rate, ok := t[service]
	if !ok {
		return Quote{}, fmt.Errorf("%w: unknown service %q", ErrInvalid, service)
	}
	domestic := to.Domestic(HomeCountry)
	if !domestic && !rate.International {
		return Quote{}, fmt.Errorf("%w: %s does not ship to %s", ErrInvalid, service, to.Country)
	}
	grams := p.BillableGrams()
	if grams <= 0 {
		return Quote{}, fmt.Errorf("%w: parcel has no weight", ErrInvalid)
	}
	if grams > rate.MaxGrams {
		return Quote{}, fmt.Errorf("%w: %d g exceeds %s limit of %d g", ErrInvalid, grams, service, rate.MaxGrams)
	}
	kilos := model.Cents((grams + 999) / 1000)
	return Quote{
		Service: service,
		Cost:    rate.BaseCents + kilos*rate.PerKgCents,
		ETA:     addBusinessDays(at, rate.TransitDays),
	}, nil
}

// Cheapest returns the lowest-cost quote among all services that accept p.
func (t RateTable) Cheapest(p model.Parcel, to model.Address, at time.Time) (Quote, error) {
	var best *Quote
	for _, name := range t.Services() {
		q, err := t.Quote(name, p, to, at)
		if err != nil {
			continue
		}
		if best == nil || q.Cost < best.Cost {
			q := q
			best = &q
		}
	}
	if best == nil {
		return Quote{}, fmt.Errorf("%w: no service accepts this parcel", ErrInvalid)
	}
	return *best, nil
}

func addBusinessDays(t time.Time, days int) time.Time {
	for days > 0 {
		t = t.AddDate(0, 0, 1)
		if wd := t.Weekday(); wd != time.Saturday && wd != time.Sunday {
			days--
		}
	}
	return t
}
