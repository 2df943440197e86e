// Command shipd is the Acme shipping service.
//
//	shipd -addr :8081 -data /var/lib/shipd/shipments.json
//	shipd -issue-token user:1 -roles customer     # dev helper
//	shipd -check-token "$TOKEN"                    # dev helper
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/acme/shipd/internal/auth"
	"github.com/acme/shipd/internal/httpapi"
	"github.com/acme/shipd/internal/shipping"
	"github.com/acme/shipd/internal/store"
)

type config struct {
	addr       string
	dataFile   string
	issueFor   string
	roles      string
	checkToken string
	ttl        time.Duration
}

func parseFlags(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("shipd", flag.ContinueOnError)
	fs.StringVar(&cfg.addr, "addr", ":8081", "listen address")
	fs.StringVar(&cfg.dataFile, "data", "", "JSON file for shipments (in-memory when empty)")
	fs.StringVar(&cfg.issueFor, "issue-token", "", "print a development token for this subject and exit")
	fs.StringVar(&cfg.roles, "roles", "customer", "comma-separated roles for -issue-token")
	fs.StringVar(&cfg.checkToken, "check-token", "", "validate a token, print its claims and exit")
	fs.DurationVar(&cfg.ttl, "ttl", time.Hour, "lifetime of tokens from -issue-token")
	err := fs.Parse(args)
	return cfg, err
}

// openStore picks the Store implementation.
func openStore(path string) (shipping.Store, error) {
	if path == "" {
		return store.NewMemory(), nil
	}
	return store.OpenFile(path)
}

func checkToken(token string) error {
	claims, err := auth.ValidateToken(token)
	if err != nil {
		return err
	}
	fmt.Printf("subject=%s roles=%s expires=%s\n",
		claims.Subject, strings.Join(claims.Roles, ","), claims.Expiry().UTC().Format(time.RFC3339))
	return nil
}

func run(args []string, logger *log.Logger) error {
	cfg, err := parseFlags(args)
	if err != nil {
		return err
	}
	if key := os.Getenv("SHIPD_SIGNING_KEY"); key != "" {
		auth.Configure([]byte(key))
	}
	if cfg.issueFor != "" {
		token, err := auth.IssueToken(cfg.issueFor, strings.Split(cfg.roles, ","), cfg.ttl)
		if err != nil {
			return err
		}
		fmt.Println(token)
		return nil
	}
	if cfg.checkToken != "" {
		return checkToken(cfg.checkToken)
	}

	st, err := openStore(cfg.dataFile)
	if err != nil {
		return err
	}
	events := &shipping.EventLog{}
	events.Subscribe(func(e shipping.Event) {
		logger.Printf("event: %s -> %s by %s", e.ShipmentID, e.Status, e.Actor)
	})
	svc := shipping.NewService(st, shipping.SystemClock{}, shipping.WithEvents(events))

	srv := &http.Server{
		Addr:              cfg.addr,
		Handler:           httpapi.NewServer(svc, logger),
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      15 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			logger.Printf("shutdown: %v", err)
		}
	}()
	logger.Printf("shipd listening on %s", cfg.addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func main() {
	logger := log.New(os.Stderr, "shipd ", log.LstdFlags|log.LUTC)
	if err := run(os.Args[1:], logger); err != nil {
		logger.Fatal(err)
	}
}
