// Package shipping is the core of shipd: quoting, creating, tracking and
// cancelling shipments. Every public method authenticates its caller's
// token through the auth package.
package shipping

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/model"
)

// Errors returned by the service; httpapi maps them to status codes.
var (
	ErrInvalid  = errors.New("shipping: invalid request")
	ErrConflict = errors.New("shipping: conflict")
	ErrNotFound = errors.New("shipping: not found")
)

// OpsRole may advance any shipment and see every shipment.
const OpsRole = "admin"

// Store is the persistence the service needs. store.Memory and store.File
// implement it.
type Store interface {
	Get(id string) (model.Shipment, error)
	Put(s model.Shipment) error
	List(owner string) ([]model.Shipment, error)
	NextID() string
}

// Service implements the shipping use cases.
type Service struct {
	store  Store
	clock  Clock
	rates  RateTable
	events EventSink
}

// Option customises a Service.
type Option func(*Service)

// WithRates replaces the default rate card.
func WithRates(r RateTable) Option { return func(s *Service) { s.rates = r } }

// WithEvents sends shipment events to sink.
func WithEvents(sink EventSink) Option { return func(s *Service) { s.events = sink } }

// NewService wires a Service.
func NewService(store Store, clock Clock, opts ...Option) *Service {
	s := &Service{store: store, clock: clock, rates: DefaultRates(), events: discard{}}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// CreateRequest is the input to Create.
type CreateRequest struct {
	OrderRef string        `json:"order_ref"`
	To       model.Address `json:"to"`
	Parcel   model.Parcel  `json:"parcel"`
	Service  string        `json:"service"`
}

// Validate checks the request before any pricing happens.
func (r CreateRequest) Validate() error {
	if strings.TrimSpace(r.OrderRef) == "" {
		return fmt.Errorf("%w: order_ref is required", ErrInvalid)
	}
	if err := r.To.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// Quote prices a parcel without creating anything. An empty service picks
// the cheapest one.
func (s *Service) Quote(token string, p model.Parcel, to model.Address, service string) (Quote, error) {
	if _, err := auth.ValidateToken(token); err != nil {
		return Quote{}, err
	}
	if service == "" {
		return s.rates.Cheapest(p, to, s.clock.Now())
	}
	return s.rates.Quote(service, p, to, s.clock.Now())
}

// Create books a shipment for the caller.
func (s *Service) Create(token string, req CreateRequest) (model.Shipment, error) {
	claims, err := auth.ValidateToken(token)
	if err != nil {
		return model.Shipment{}, err
	}
	if err := req.Validate(); err != nil {
		return model.Shipment{}, err
	}
	if req.Service == "" {
		req.Service = "standard"
	}
	now := s.clock.Now()
	quote, err := s.rates.Quote(req.Service, req.Parcel, req.To, now)
	if err != nil {
		return model.Shipment{}, err
	}
	shipment := model.Shipment{
		ID:        s.store.NextID(),
		OrderRef:  req.OrderRef,
		Owner:     claims.Subject,
		To:        req.To,
		Parcel:    req.Parcel,
		Service:   quote.Service,
		Cost:      quote.Cost,
		ETA:       quote.ETA,
		CreatedAt: now,
	}
	shipment.Record(now, model.StatusCreated, "label created")
	if err := s.store.Put(shipment); err != nil {
		return model.Shipment{}, err
	}
	s.emit(shipment, claims.Subject)
	return shipment, nil
}

// Get returns one shipment the caller may see.
func (s *Service) Get(token, id string) (model.Shipment, error) {
	shipment, _, err := s.authorizedGet(token, id)
	return shipment, err
}

// List returns the caller's shipments (all shipments for ops).
func (s *Service) List(token string) ([]model.Shipment, error) {
	claims, err := auth.ValidateToken(token)
	if err != nil {
		return nil, err
	}
	owner := claims.Subject
	if claims.HasRole(OpsRole) {
		owner = ""
	}
	return s.store.List(owner)
}

// Track returns the tracking history; it only needs the subject.
func (s *Service) Track(token, id string) ([]model.Event, error) {
	subject, err := auth.SubjectOf(token)
	if err != nil {
		return nil, err
	}
	shipment, err := s.load(id)
	if err != nil {
		return nil, err
	}
	if shipment.Owner != subject {
		if _, err := auth.Authorize(token, OpsRole); err != nil {
			return nil, err
		}
	}
	return shipment.Events, nil
}

// Cancel cancels a shipment that has not been picked up yet.
func (s *Service) Cancel(token, id, reason string) (model.Shipment, error) {
	shipment, claims, err := s.authorizedGet(token, id)
	if err != nil {
		return model.Shipment{}, err
	}
	if reason == "" {
		reason = "cancelled by " + claims.Subject
	}
	return s.transition(shipment, model.StatusCancelled, reason, claims.Subject)
}

// Advance moves a shipment along its lifecycle (ops only).
func (s *Service) Advance(token, id string, status model.Status, note string) (model.Shipment, error) {
	claims, err := auth.Authorize(token, OpsRole)
	if err != nil {
		return model.Shipment{}, err
	}
	shipment, err := s.load(id)
	if err != nil {
		return model.Shipment{}, err
	}
	return s.transition(shipment, status, note, claims.Subject)
}

// Overdue lists undelivered shipments past their ETA (ops only).
func (s *Service) Overdue(token string) ([]model.Shipment, error) {
	if _, err := auth.Authorize(token, OpsRole); err != nil {
		return nil, err
	}
	all, err := s.store.List("")
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var late []model.Shipment
	for _, sh := range all {
		if !sh.Terminal() && now.After(sh.ETA) {
			late = append(late, sh)
		}
	}
	return late, nil
}

// Rates exposes the rate card (value receiver: it only reads).
func (s Service) Rates() RateTable { return s.rates }

func (s *Service) authorizedGet(token, id string) (model.Shipment, auth.Claims, error) {
	claims, err := auth.ValidateToken(token)
	if err != nil {
		return model.Shipment{}, auth.Claims{}, err
	}
	shipment, err := s.load(id)
	if err != nil {
		return model.Shipment{}, auth.Claims{}, err
	}
	if shipment.Owner != claims.Subject && !claims.HasRole(OpsRole) {
		// Hide existence from other customers.
		return model.Shipment{}, auth.Claims{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return shipment, claims, nil
}

func (s *Service) load(id string) (model.Shipment, error) {
	shipment, err := s.store.Get(id)
	if err != nil {
		return model.Shipment{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return shipment, nil
}

func (s *Service) transition(sh model.Shipment, to model.Status, note, actor string) (model.Shipment, error) {
	if !sh.Status.CanMove(to) {
		return model.Shipment{}, fmt.Errorf("%w: cannot move %s from %s to %s", ErrConflict, sh.ID, sh.Status, to)
	}
	sh.Record(s.clock.Now(), to, note)
	if err := s.store.Put(sh); err != nil {
		return model.Shipment{}, err
	}
	s.emit(sh, actor)
	return sh, nil
}

func (s *Service) emit(sh model.Shipment, actor string) {
	s.events.Emit(Event{At: s.clock.Now(), ShipmentID: sh.ID, Owner: sh.Owner, Status: sh.Status, Actor: actor})
}
