package httpapi

import (
	"log"
	"net/http"
	"time"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/shipping"
)

// Server is the shipd HTTP front end.
type Server struct {
	mux     *http.ServeMux
	svc     *shipping.Service
	log     *log.Logger
	started time.Time
}

// NewServer builds the routes for svc.
func NewServer(svc *shipping.Service, logger *log.Logger) *Server {
	s := &Server{mux: http.NewServeMux(), svc: svc, log: logger, started: time.Now()}
	b := base{svc: svc, log: logger}

	shipments := &ShipmentHandler{base: b}
	s.mux.Handle("/shipments", shipments)
	s.mux.Handle("/shipments/", shipments)
	s.mux.Handle("/quotes", &QuoteHandler{base: b})
	s.mux.Handle("/ops/", auth.RequireRole(shipping.OpsRole)(&OpsHandler{base: b}))
	s.mux.Handle("/whoami", auth.RequireAuth(http.HandlerFunc(s.whoami)))
	s.mux.HandleFunc("/healthz", s.health)
	s.mux.HandleFunc("/rates", s.rates)
	return s
}

// ServeHTTP wraps the mux with logging and panic recovery.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	recoverer(s.log, logging(s.log, s.mux)).ServeHTTP(w, r)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	b := base{svc: s.svc, log: s.log}
	b.writeJSON(w, http.StatusOK, map[string]interface{}{
		"status": "ok",
		"uptime": time.Since(s.started).Round(time.Second).String(),
	})
}

func (s *Server) rates(w http.ResponseWriter, r *http.Request) {
	b := base{svc: s.svc, log: s.log}
	b.writeJSON(w, http.StatusOK, s.svc.Rates())
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	claims, _ := auth.ClaimsFrom(r.Context())
	b := base{svc: s.svc, log: s.log}
	b.writeJSON(w, http.StatusOK, map[string]interface{}{
		"subject": claims.Subject,
		"roles":   claims.Roles,
		"expires": claims.Expiry().UTC(),
	})
}
