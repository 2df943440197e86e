package auth

import (
	"fmt"
	"net/http"
	"strings"
)

// BearerToken extracts the raw token from an Authorization header.
func BearerToken(r *http.Request) (string, error) {
	header := r.Header.Get("Authorization")
	if header == "" {
		return "", ErrMissing
	}
	scheme, value, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(value) == "" {
		return "", ErrMalformed
	}
	return strings.TrimSpace(value), nil
}

// FromRequest validates the request's bearer token.
func FromRequest(r *http.Request) (Claims, error) {
	if claims, ok := ClaimsFrom(r.Context()); ok {
		return claims, nil
	}
	token, err := BearerToken(r)
	if err != nil {
		return Claims{}, err
	}
	return ValidateToken(token)
}

// SubjectOf returns the subject of a valid token.
func SubjectOf(token string) (string, error) {
	claims, err := ValidateToken(token)
	if err != nil {
		return "", err
	}
	return claims.Subject, nil
}

// Authorize validates token and requires role.
func Authorize(token, role string) (Claims, error) {
	claims, err := ValidateToken(token)
	if err != nil {
		return Claims{}, err
	}
	if !claims.HasRole(role) {
		return Claims{}, fmt.Errorf("%w: role %q required", ErrForbidden, role)
	}
	return claims, nil
}

// OwnerOrRole validates token and requires that the caller is owner or has role.
func OwnerOrRole(token, owner, role string) (Claims, error) {
	claims, err := ValidateToken(token)
	if err != nil {
		return Claims{}, err
	}
	if claims.Subject != owner && !claims.HasRole(role) {
		return Claims{}, fmt.Errorf("%w: not the owner", ErrForbidden)
	}
	return claims, nil
}
