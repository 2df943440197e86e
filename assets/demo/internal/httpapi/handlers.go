package httpapi

import (
	"net/http"
	"strings"

	"github.com/acme/shipd/internal/model"
	"github.com/acme/shipd/internal/shipping"
)

// ShipmentHandler serves /shipments and /shipments/{id}[/track|/cancel].
type ShipmentHandler struct {
	base
}

func (h *ShipmentHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, action := splitPath(strings.TrimPrefix(r.URL.Path, "/shipments"))
	switch {
	case id == "" && r.Method == http.MethodGet:
		h.list(w, r)
	case id == "" && r.Method == http.MethodPost:
		h.create(w, r)
	case id != "" && action == "" && r.Method == http.MethodGet:
		h.get(w, r, id)
	case id != "" && action == "track" && r.Method == http.MethodGet:
		h.track(w, r, id)
	case id != "" && action == "cancel" && r.Method == http.MethodPost:
		h.cancel(w, r, id)
	default:
		h.writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such route"})
	}
}

func (h *ShipmentHandler) list(w http.ResponseWriter, r *http.Request) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	shipments, err := h.svc.List(token)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusOK, map[string]interface{}{"shipments": shipments})
}

func (h *ShipmentHandler) create(w http.ResponseWriter, r *http.Request) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	var req shipping.CreateRequest
	if err := h.decode(r, &req); err != nil {
		h.fail(w, err)
		return
	}
	shipment, err := h.svc.Create(token, req)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusCreated, shipment)
}

func (h *ShipmentHandler) get(w http.ResponseWriter, r *http.Request, id string) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	shipment, err := h.svc.Get(token, id)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusOK, shipment)
}

func (h *ShipmentHandler) track(w http.ResponseWriter, r *http.Request, id string) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	events, err := h.svc.Track(token, id)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusOK, map[string]interface{}{"id": id, "events": events})
}

func (h *ShipmentHandler) cancel(w http.ResponseWriter, r *http.Request, id string) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength > 0 {
		if err := h.decode(r, &body); err != nil {
			h.fail(w, err)
			return
		}
	}
	shipment, err := h.svc.Cancel(token, id, body.Reason)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusOK, shipment)
}

// QuoteHandler serves POST /quotes.
type QuoteHandler struct {
	base
}

type quoteRequest struct {
	To      model.Address `json:"to"`
	Parcel  model.Parcel  `json:"parcel"`
	Service string        `json:"service"`
}

func (h *QuoteHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
		return
	}
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	var req quoteRequest
	if err := h.decode(r, &req); err != nil {
		h.fail(w, err)
		return
	}
	quote, err := h.svc.Quote(token, req.Parcel, req.To, req.Service)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusOK, quote)
}

// OpsHandler serves the warehouse/ops endpoints under /ops/.
// The route is wrapped in auth.RequireRole, so claims are already in the context.
type OpsHandler struct {
	base
}

type advanceRequest struct {
	Status model.Status `json:"status"`
	Note   string       `json:"note"`
}

func (h *OpsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/ops")
	if rest == "/overdue" && r.Method == http.MethodGet {
		h.overdue(w, r)
		return
	}
	id, action := splitPath(strings.TrimPrefix(rest, "/shipments"))
	if id == "" || action != "advance" || r.Method != http.MethodPost {
		h.writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such route"})
		return
	}
	h.advance(w, r, id)
}

func (h *OpsHandler) advance(w http.ResponseWriter, r *http.Request, id string) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	claims, err := h.claims(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	var req advanceRequest
	if err := h.decode(r, &req); err != nil {
		h.fail(w, err)
		return
	}
	shipment, err := h.svc.Advance(token, id, req.Status, req.Note)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.log.Printf("ops: %s moved %s to %s", claims.Subject, id, shipment.Status)
	h.writeJSON(w, http.StatusOK, shipment)
}

func (h *OpsHandler) overdue(w http.ResponseWriter, r *http.Request) {
	token, err := h.token(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	late, err := h.svc.Overdue(token)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, http.StatusOK, map[string]interface{}{"shipments": late})
}

// splitPath turns "/SHP-1/track" into ("SHP-1", "track").
func splitPath(p string) (id, action string) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 0 {
		id = parts[0]
	}
	if len(parts) > 1 {
		action = parts[1]
	}
	return id, action
}
