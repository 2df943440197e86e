package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/model"
	"github.com/acme/shipd/internal/shipping"
	"github.com/acme/shipd/internal/store"
)

type client struct {
	t   *testing.T
	srv *httptest.Server
}

func newClient(t *testing.T) (*client, *shipping.FixedClock) {
	t.Helper()
	clock := shipping.NewFixedClock(time.Date(2024, 1, 8, 9, 0, 0, 0, time.UTC))
	svc := shipping.NewService(store.NewMemory(), clock)
	srv := httptest.NewServer(NewServer(svc, log.New(io.Discard, "", 0)))
	t.Cleanup(srv.Close)
	return &client{t: t, srv: srv}, clock
}

func issue(t *testing.T, subject string, roles ...string) string {
	t.Helper()
	tok, err := auth.IssueToken(subject, roles, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (c *client) do(method, path, token string, body interface{}, out interface{}) int {
	c.t.Helper()
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.srv.URL+path, reader)
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.srv.Client().Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			c.t.Fatalf("%s %s: decode: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

var createBody = map[string]interface{}{
	"order_ref": "order-7",
	"service":   "economy",
	"to":        map[string]string{"name": "Grace", "line1": "2 Compiler St", "city": "Arlington", "postcode": "22201", "country": "US"},
	"parcel":    map[string]int{"weight_grams": 800},
}

func TestHealthAndRates(t *testing.T) {
	c, _ := newClient(t)
	var health map[string]string
	if c.do("GET", "/healthz", "", nil, &health) != 200 || health["status"] != "ok" {
		t.Fatalf("health %v", health)
	}
	var rates map[string]interface{}
	if c.do("GET", "/rates", "", nil, &rates) != 200 || rates["express"] == nil {
		t.Fatalf("rates %v", rates)
	}
}

func TestShipmentFlow(t *testing.T) {
	c, _ := newClient(t)
	grace := issue(t, "user:2", "customer")
	ada := issue(t, "user:1", "customer")
	ops := issue(t, "user:3", "admin")

	var created model.Shipment
	if status := c.do("POST", "/shipments", grace, createBody, &created); status != 201 {
		t.Fatalf("create status %d", status)
	}
	if created.Cost != 399+80 {
		t.Fatalf("cost %s", created.Cost)
	}
	path := "/shipments/" + created.ID

	var list struct{ Shipments []model.Shipment }
	c.do("GET", "/shipments", grace, nil, &list)
	if len(list.Shipments) != 1 {
		t.Fatalf("list %+v", list)
	}
	if status := c.do("GET", path, ada, nil, nil); status != 404 {
		t.Fatalf("other customer got %d", status)
	}
	advance := map[string]string{"status": "picked_up", "note": "dock 4"}
	if status := c.do("POST", "/ops"+path+"/advance", grace, advance, nil); status != 403 {
		t.Fatalf("customer advance got %d", status)
	}
	var moved model.Shipment
	if status := c.do("POST", "/ops"+path+"/advance", ops, advance, &moved); status != 200 || moved.Status != model.StatusPickedUp {
		t.Fatalf("ops advance: %d %+v", status, moved)
	}
	var track struct{ Events []model.Event }
	c.do("GET", path+"/track", grace, nil, &track)
	if len(track.Events) != 2 || track.Events[1].Note != "dock 4" {
		t.Fatalf("track %+v", track)
	}
	if status := c.do("POST", path+"/cancel", grace, map[string]string{"reason": "changed mind"}, nil); status != 409 {
		t.Fatalf("cancel after pickup got %d", status)
	}
}

func TestQuotesAndErrors(t *testing.T) {
	c, clock := newClient(t)
	tok := issue(t, "user:1", "customer")
	body := map[string]interface{}{"to": createBody["to"], "parcel": createBody["parcel"], "service": "express"}
	var q shipping.Quote
	if status := c.do("POST", "/quotes", tok, body, &q); status != 200 || q.Cost != 1499+250 {
		t.Fatalf("quote %d %+v", status, q)
	}
	if status := c.do("GET", "/quotes", tok, nil, nil); status != 405 {
		t.Fatalf("GET /quotes = %d", status)
	}
	if status := c.do("POST", "/quotes", "", body, nil); status != 401 {
		t.Fatalf("anonymous quote = %d", status)
	}
	if status := c.do("POST", "/quotes", tok, map[string]string{"bogus": "x"}, nil); status != 400 {
		t.Fatalf("unknown field = %d", status)
	}
	if status := c.do("GET", "/shipments/SHP-404", tok, nil, nil); status != 404 {
		t.Fatalf("missing shipment = %d", status)
	}
	if status := c.do("DELETE", "/shipments", tok, nil, nil); status != 404 {
		t.Fatalf("unknown route = %d", status)
	}
	clock.Advance(48 * time.Hour) // the service clock does not affect token expiry
	if status := c.do("GET", "/shipments", tok, nil, nil); status != 200 {
		t.Fatalf("list after clock advance = %d", status)
	}
}

func TestWhoamiAndOverdue(t *testing.T) {
	c, clock := newClient(t)
	ops := issue(t, "user:3", "admin")
	cust := issue(t, "user:1", "customer")
	var me map[string]interface{}
	if c.do("GET", "/whoami", cust, nil, &me) != 200 || me["subject"] != "user:1" {
		t.Fatalf("whoami %v", me)
	}
	c.do("POST", "/shipments", cust, createBody, nil)
	clock.Advance(30 * 24 * time.Hour)
	var late struct{ Shipments []model.Shipment }
	if status := c.do("GET", "/ops/overdue", ops, nil, &late); status != 200 || len(late.Shipments) != 1 {
		t.Fatalf("overdue %d %+v", status, late)
	}
}

func TestRecovererAndStatusMapping(t *testing.T) {
	logger := log.New(io.Discard, "", 0)
	h := recoverer(logger, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), "internal error") {
		t.Fatalf("recoverer: %d %q", rec.Code, rec.Body.String())
	}
	if statusFor(shipping.ErrConflict) != 409 || statusFor(auth.ErrExpired) != 401 || statusFor(io.EOF) != 500 {
		t.Fatal("statusFor mapping changed")
	}
}
