// Package model holds the plain data types shared by shipping and store.
package model

import (
	"fmt"
	"strings"
	"time"
)

// Status is a shipment's position in its lifecycle.
type Status string

const (
	StatusCreated   Status = "created"
	StatusPickedUp  Status = "picked_up"
	StatusInTransit Status = "in_transit"
	StatusDelivered Status = "delivered"
	StatusCancelled Status = "cancelled"
)

var transitions = map[Status][]Status{
	StatusCreated:   {StatusPickedUp, StatusCancelled},
	StatusPickedUp:  {StatusInTransit},
	StatusInTransit: {StatusInTransit, StatusDelivered},
}

// CanMove reports whether a shipment may go from s to next.
func (s Status) CanMove(next Status) bool {
	for _, allowed := range transitions[s] {
		if allowed == next {
			return true
		}
	}
	return false
}

// Cents is an amount of money in the smallest currency unit.
type Cents int64

func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Address is a postal address.
type Address struct {
	Name     string `json:"name"`
	Line1    string `json:"line1"`
	City     string `json:"city"`
	Postcode string `json:"postcode"`
	Country  string `json:"country"`
}

// Validate checks the fields a carrier needs.
func (a Address) Validate() error {
	var missing []string
	if strings.TrimSpace(a.Name) == "" {
		missing = append(missing, "name")
	}
	if strings.TrimSpace(a.Line1) == "" {
		missing = append(missing, "line1")
	}
	if strings.TrimSpace(a.City) == "" {
		missing = append(missing, "city")
	}
	if len(a.Country) != 2 {
		missing = append(missing, "country (ISO 3166 alpha-2)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("address: missing or invalid %s", strings.Join(missing, ", "))
	}
	return nil
}

// Domestic reports whether the address is in the home country.
func (a Address) Domestic(home string) bool { return strings.EqualFold(a.Country, home) }

// Parcel describes the physical package.
type Parcel struct {
	WeightGrams int `json:"weight_grams"`
	LengthCm    int `json:"length_cm"`
	WidthCm     int `json:"width_cm"`
	HeightCm    int `json:"height_cm"`
}

// BillableGrams is the larger of actual and volumetric weight.
func (p Parcel) BillableGrams() int {
	volumetric := p.LengthCm * p.WidthCm * p.HeightCm / 5 // 5000 cm3 per kg
	if volumetric > p.WeightGrams {
		return volumetric
	}
	return p.WeightGrams
}

// Event is one entry in a shipment's tracking history.
type Event struct {
	At     time.Time `json:"at"`
	Status Status    `json:"status"`
	Note   string    `json:"note,omitempty"`
}

// Shipment is a parcel travelling from the warehouse to a customer.
type Shipment struct {
	ID        string    `json:"id"`
	OrderRef  string    `json:"order_ref"`
	Owner     string    `json:"owner"`
	To        Address   `json:"to"`
	Parcel    Parcel    `json:"parcel"`
	Service   string    `json:"service"`
	Status    Status    `json:"status"`
	Cost      Cents     `json:"cost"`
	ETA       time.Time `json:"eta"`
	CreatedAt time.Time `json:"created_at"`
	Events    []Event   `json:"events"`
}

// Record appends a tracking event and updates the status.
func (s *Shipment) Record(at time.Time, status Status, note string) {
	s.Status = status
	s.Events = append(s.Events, Event{At: at, Status: status, Note: note})
}

// Terminal reports whether no further transitions are possible.
func (s Shipment) Terminal() bool {
	return s.Status == StatusDelivered || s.Status == StatusCancelled
}

// Last returns the latest tracking event.
func (s Shipment) Last() (Event, bool) {
	if len(s.Events) == 0 {
		return Event{}, false
	}
	return s.Events[len(s.Events)-1], true
}
