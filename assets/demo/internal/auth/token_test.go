package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Tokens minted by shop/auth/tokens.py with its clock frozen at 1700000000
// (see tests/conftest.py); shipd must accept them.
const (
	shopCustomerToken = "eyJleHAiOiAxNzAwMDAzNjAwLCAiaWF0IjogMTcwMDAwMDAwMCwgImp0aSI6ICJ0MDAwMDAxIiwgInJvbGVzIjogWyJjdXN0b21lciJdLCAic3ViIjogInVzZXI6MSJ9.5XwLKs12ujUvjtkIImfxJaDY6_K1gXi7yPmaK6cLtxA"
	shopAdminToken    = "eyJleHAiOiAxNzAwMDAzNjAwLCAiaWF0IjogMTcwMDAwMDAwMCwgImp0aSI6ICJ0MDAwMDAyIiwgInJvbGVzIjogWyJhZG1pbiIsICJjdXN0b21lciJdLCAic3ViIjogInVzZXI6MyJ9.b4CosGkhGrUzu8cv8f0TRsZy2lfIx4ULyqKmhXXYf0k"
)

func freeze(t *testing.T, unix int64) *time.Time {
	t.Helper()
	now := time.Unix(unix, 0)
	restore := SetClock(func() time.Time { return now })
	t.Cleanup(restore)
	return &now
}

func mustIssue(t *testing.T, subject string, roles ...string) string {
	t.Helper()
	token, err := IssueToken(subject, roles, time.Hour)
	if err != nil {
		t.Fatalf("IssueToken: %v", err)
	}
	return token
}

func TestIssueAndValidate(t *testing.T) {
	freeze(t, 1700000000)
	token := mustIssue(t, "user:7", "customer", "admin")
	claims, err := ValidateToken(token)
	if err != nil {
		t.Fatalf("ValidateToken: %v", err)
	}
	if claims.Subject != "user:7" || !claims.HasRole("admin") || claims.HasRole("root") {
		t.Fatalf("unexpected claims %+v", claims)
	}
	if claims.ExpiresAt != 1700003600 {
		t.Fatalf("expiry = %d", claims.ExpiresAt)
	}
	if _, err := ValidateToken("Bearer " + token); err != nil {
		t.Fatalf("bearer prefix rejected: %v", err)
	}
}

func TestValidateRejects(t *testing.T) {
	freeze(t, 1700000000)
	good := mustIssue(t, "user:1")
	body, sig, _ := strings.Cut(good, ".")
	other, _, _ := strings.Cut(mustIssue(t, "user:2"), ".")
	cases := []struct {
		name  string
		token string
		want  error
	}{
		{"empty", "", ErrMissing},
		{"one part", "abc", ErrMalformed},
		{"three parts", "a.b.c", ErrMalformed},
		{"empty signature", body + ".", ErrMalformed},
		{"swapped body", other + "." + sig, ErrSignature},
		{"garbage signature", body + ".xyz", ErrSignature},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ValidateToken(tc.token); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	now := freeze(t, 1700000000)
	token, _ := IssueToken("user:1", nil, time.Minute)
	*now = now.Add(59 * time.Second)
	if _, err := ValidateToken(token); err != nil {
		t.Fatalf("still valid: %v", err)
	}
	*now = now.Add(time.Second)
	if _, err := ValidateToken(token); !errors.Is(err, ErrExpired) {
		t.Fatalf("got %v, want ErrExpired", err)
	}
}

func TestRevokeAndRefresh(t *testing.T) {
	freeze(t, 1700000000)
	t.Cleanup(ResetRevocations)
	token := mustIssue(t, "user:3")
	fresh, err := Refresh(token, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ValidateToken(token); !errors.Is(err, ErrRevoked) {
		t.Fatalf("old token: %v", err)
	}
	if subject, err := SubjectOf(fresh); err != nil || subject != "user:3" {
		t.Fatalf("SubjectOf = %q, %v", subject, err)
	}
	if err := Revoke(fresh); err != nil {
		t.Fatal(err)
	}
	if err := Revoke(fresh); !errors.Is(err, ErrRevoked) {
		t.Fatalf("double revoke: %v", err)
	}
}

func TestShopIssuedTokensAreAccepted(t *testing.T) {
	freeze(t, 1700000100)
	claims, err := ValidateToken(shopCustomerToken)
	if err != nil {
		t.Fatalf("shop token rejected: %v", err)
	}
	if claims.Subject != "user:1" || claims.ID != "t000001" {
		t.Fatalf("claims %+v", claims)
	}
	if _, err := Authorize(shopAdminToken, "admin"); err != nil {
		t.Fatalf("shop admin token: %v", err)
	}
}

func TestAuthorizeAndOwnerOrRole(t *testing.T) {
	freeze(t, 1700000000)
	customer := mustIssue(t, "user:5", "customer")
	admin := mustIssue(t, "user:6", "admin")
	if _, err := Authorize(customer, "admin"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("customer authorized as admin: %v", err)
	}
	if _, err := OwnerOrRole(customer, "user:5", "admin"); err != nil {
		t.Fatalf("owner rejected: %v", err)
	}
	if _, err := OwnerOrRole(admin, "user:5", "admin"); err != nil {
		t.Fatalf("admin rejected: %v", err)
	}
	if _, err := OwnerOrRole(customer, "user:6", "admin"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("stranger accepted: %v", err)
	}
	if StatusFor(ErrForbidden) != http.StatusForbidden || StatusFor(ErrExpired) != http.StatusUnauthorized {
		t.Fatal("StatusFor mapping changed")
	}
}

func TestMiddleware(t *testing.T) {
	freeze(t, 1700000000)
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, _ := ClaimsFrom(r.Context())
		w.Write([]byte(claims.Subject))
	})
	customer := mustIssue(t, "user:1", "customer")
	admin := mustIssue(t, "user:2", "admin")

	cases := []struct {
		name    string
		handler http.Handler
		token   string
		status  int
		body    string
	}{
		{"auth ok", RequireAuth(echo), customer, 200, "user:1"},
		{"auth missing", RequireAuth(echo), "", 401, ""},
		{"auth bad", RequireAuth(echo), "nope.nope", 401, ""},
		{"role ok", RequireRole("admin")(echo), admin, 200, "user:2"},
		{"role forbidden", RequireRole("admin")(echo), customer, 403, ""},
		{"chained", RequireAuth(RequireRole("admin")(echo)), admin, 200, "user:2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			rec := httptest.NewRecorder()
			tc.handler.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if tc.body != "" && rec.Body.String() != tc.body {
				t.Fatalf("body %q, want %q", rec.Body.String(), tc.body)
			}
		})
	}
}
