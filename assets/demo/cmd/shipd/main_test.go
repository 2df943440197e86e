package main

import (
	"io"
	"log"
	"path/filepath"
	"testing"
	"time"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/store"
)

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-addr", ":9000", "-data", "/tmp/x.json", "-ttl", "2h"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.addr != ":9000" || cfg.dataFile != "/tmp/x.json" || cfg.ttl != 2*time.Hour {
		t.Fatalf("cfg %+v", cfg)
	}
}

func TestOpenStorePicksImplementation(t *testing.T) {
	st, err := openStore("")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*store.Memory); !ok {
		t.Fatalf("empty path gave %T", st)
	}
	st, err = openStore(filepath.Join(t.TempDir(), "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*store.File); !ok {
		t.Fatalf("file path gave %T", st)
	}
}

func TestCheckToken(t *testing.T) {
	tok, err := auth.IssueToken("user:1", []string{"customer"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkToken(tok); err != nil {
		t.Fatalf("valid token: %v", err)
	}
	if _, err := auth.ValidateToken(tok + "x"); err == nil {
		t.Fatal("tampered token accepted")
	}
	if err := checkToken("nope"); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestRunIssuesToken(t *testing.T) {
	if err := run([]string{"-issue-token", "user:5", "-roles", "admin"}, log.New(io.Discard, "", 0)); err != nil {
		t.Fatal(err)
	}
}
