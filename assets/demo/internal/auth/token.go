// Package auth verifies the bearer tokens issued by the shop backend.
//
// Tokens are "<base64url(JSON claims)>.<base64url(HMAC-SHA256(body))>", the
// same format shop/auth/tokens.py produces, so a token minted by the shop is
// accepted by shipd. ValidateToken is the single gate for every
// authenticated path in shipd, called directly or through the helpers in
// helpers.go and middleware.go.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DevSigningKey is the development placeholder key shared with the shop.
const DevSigningKey = "dev-only-not-a-secret"

var (
	ErrMissing   = errors.New("auth: missing token")
	ErrMalformed = errors.New("auth: malformed token")
	ErrSignature = errors.New("auth: bad token signature")
	ErrExpired   = errors.New("auth: token expired")
	ErrRevoked   = errors.New("auth: token revoked")
	ErrForbidden = errors.New("auth: forbidden")
)

var (
	keyMu      sync.RWMutex
	signingKey = []byte(DevSigningKey)

	revokedMu sync.Mutex
	revoked   = map[string]bool{}

	tokenSeq uint64

	// now is the time source; tests replace it with SetClock.
	now = time.Now
)

// Claims is the verified content of a token.
type Claims struct {
	Subject   string   `json:"sub"`
	Roles     []string `json:"roles"`
	IssuedAt  int64    `json:"iat"`
	ExpiresAt int64    `json:"exp"`
	ID        string   `json:"jti"`
}

// HasRole reports whether the claims carry role (superuser implies all).
func (c Claims) HasRole(role string) bool {
	for _, r := range c.Roles {
		if r == role || r == "superuser" {
			return true
		}
	}
	return false
}

// Expiry returns the expiry as a time.Time.
func (c Claims) Expiry() time.Time { return time.Unix(c.ExpiresAt, 0) }

// Configure replaces the signing key. Call once at startup.
func Configure(key []byte) {
	keyMu.Lock()
	defer keyMu.Unlock()
	signingKey = append([]byte(nil), key...)
}

// SetClock swaps the time source and returns a function restoring the old one.
func SetClock(clock func() time.Time) (restore func()) {
	previous := now
	now = clock
	return func() { now = previous }
}

func sign(body string) string {
	keyMu.RLock()
	mac := hmac.New(sha256.New, signingKey)
	keyMu.RUnlock()
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// IssueToken mints a token for subject (for example "user:42").
func IssueToken(subject string, roles []string, ttl time.Duration) (string, error) {
	if subject == "" {
		return "", fmt.Errorf("auth: empty subject")
	}
	issued := now().Unix()
	claims := Claims{
		Subject:   subject,
		Roles:     append([]string(nil), roles...),
		IssuedAt:  issued,
		ExpiresAt: issued + int64(ttl/time.Second),
		ID:        fmt.Sprintf("g%06d", atomic.AddUint64(&tokenSeq, 1)),
	}
	raw, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + sign(body), nil
}

// ValidateToken verifies signature, expiry and revocation and returns the
// token's claims. A "Bearer " prefix is tolerated.
func ValidateToken(token string) (Claims, error) {
	token = strings.TrimSpace(token)
	if strings.HasPrefix(strings.ToLower(token), "bearer ") {
		token = strings.TrimSpace(token[len("bearer "):])
	}
	if token == "" {
		return Claims{}, ErrMissing
	}
	parts := strings.Split(token, ".")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return Claims{}, ErrMalformed
	}
	body, signature := parts[0], parts[1]
	if !hmac.Equal([]byte(sign(body)), []byte(signature)) {
		return Claims{}, ErrSignature
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(body, "="))
	if err != nil {
		return Claims{}, ErrMalformed
	}
	var claims Claims
	if err := json.Unmarshal(raw, &claims); err != nil || claims.Subject == "" {
		return Claims{}, ErrMalformed
	}
	if claims.ExpiresAt <= now().Unix() {
		return Claims{}, ErrExpired
	}
	if isRevoked(claims.ID) {
		return Claims{}, ErrRevoked
	}
	return claims, nil
}

func isRevoked(id string) bool {
	revokedMu.Lock()
	defer revokedMu.Unlock()
	return revoked[id]
}

// Revoke invalidates a currently valid token.
func Revoke(token string) error {
	claims, err := ValidateToken(token)
	if err != nil {
		return err
	}
	revokedMu.Lock()
	revoked[claims.ID] = true
	revokedMu.Unlock()
	return nil
}

// Refresh exchanges a valid token for a new one and revokes the old one.
func Refresh(token string, ttl time.Duration) (string, error) {
	claims, err := ValidateToken(token)
	if err != nil {
		return "", err
	}
	if err := Revoke(token); err != nil {
		return "", err
	}
	return IssueToken(claims.Subject, claims.Roles, ttl)
}

// ResetRevocations clears the revocation list (tests only).
func ResetRevocations() {
	revokedMu.Lock()
	revoked = map[string]bool{}
	revokedMu.Unlock()
}
