// Package httpapi exposes the shipping service over HTTP/JSON.
package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/shipping"
)

const maxBody = 1 << 20

// base is embedded in every handler; its methods are promoted, so handlers
// call h.token(r), h.writeJSON(...) and h.fail(...) as if they were their own.
type base struct {
	svc *shipping.Service
	log *log.Logger
}

// token returns the request's bearer token after validating it, so handlers
// can pass it on to the service.
func (b *base) token(r *http.Request) (string, error) {
	raw, err := auth.BearerToken(r)
	if err != nil {
		return "", err
	}
	if _, err := auth.ValidateToken(raw); err != nil {
		return "", err
	}
	return raw, nil
}

// claims validates the request's token and returns its claims.
func (b *base) claims(r *http.Request) (auth.Claims, error) {
	if c, ok := auth.ClaimsFrom(r.Context()); ok {
		return c, nil
	}
	raw, err := auth.BearerToken(r)
	if err != nil {
		return auth.Claims{}, err
	}
	return auth.ValidateToken(raw)
}

func (b *base) writeJSON(w http.ResponseWriter, status int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		b.log.Printf("httpapi: encode response: %v", err)
	}
}

func (b *base) decode(r *http.Request, v interface{}) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errBadJSON{err}
	}
	return nil
}

type errBadJSON struct{ err error }

func (e errBadJSON) Error() string { return "bad JSON: " + e.err.Error() }

// fail writes err with the status code that matches it.
func (b *base) fail(w http.ResponseWriter, err error) {
	status := statusFor(err)
	if status >= 500 {
		b.log.Printf("httpapi: internal error: %v", err)
	}
	b.writeJSON(w, status, map[string]string{"error": err.Error()})
}

func statusFor(err error) int {
	if status := auth.StatusFor(err); status != 0 {
		return status
	}
	var bad errBadJSON
	switch {
	case errors.As(err, &bad), errors.Is(err, shipping.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, shipping.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, shipping.ErrConflict):
		return http.StatusConflict
	default:
		return http.StatusInternalServerError
	}
}
