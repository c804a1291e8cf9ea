package transport

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/kv"
	"github.com/ledgernode/ledger-node/pact/persist"
	"github.com/ledgernode/ledger-node/store"
	"github.com/valyala/fasthttp"
)

// The service API and the contract API answer damaged data alike: 503 with a Retry-After and
// what to do, never 500, and neither counts it as an internal error. Before, the contract API
// answered any damage 500 "Something went wrong", and both answered damage in a Pact state (a
// request-key index entry, say) 500.
func TestDamagedDataAnswersAlike(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	errs := map[string]error{
		"store":      fmt.Errorf("read header: %w", storeDamage(t)),
		"pact state": fmt.Errorf("%w: request-key index entry of k", kv.ErrCorrupt),
	}
	for name, err := range errs {
		for _, api := range []string{"service", "contract"} {
			t.Run(name+"/"+api, func(t *testing.T) {
				var ctx fasthttp.RequestCtx
				var internal int64
				switch api {
				case "service":
					s := &Service{log: quiet}
					s.internalError(&ctx, err)
					internal = s.internalErrors.Load()
				case "contract":
					r, ok := unavailable(err, quiet)
					if !ok || r.RetryAfter != damagedRetryAfter {
						t.Fatalf("contract API: %+v, %v", r, ok)
					}
					writeDamaged(&ctx, r.Text)
				}
				body := string(ctx.Response.Body())
				if ctx.Response.StatusCode() != fasthttp.StatusServiceUnavailable ||
					string(ctx.Response.Header.Peek("Retry-After")) != "3600" ||
					!strings.Contains(body, "ledger-node check") || internal != 0 ||
					strings.Contains(body, "repairs it when restarted") != (name == "store") {
					t.Fatalf("status %d, Retry-After %q, internal errors %d: %s", ctx.Response.StatusCode(),
						ctx.Response.Header.Peek("Retry-After"), internal, body)
				}
			})
		}
	}
}

// storeDamage is damage as the store reports it (store.IsCorrupt): a data directory whose
// database holds keys but no store schema, here a Pact database's.
func storeDamage(t *testing.T) error {
	dir := t.TempDir()
	pdb, err := persist.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	pdb.Close()
	db, err := store.Open(dir, store.Options{})
	if err == nil {
		db.Close()
	}
	if !store.IsCorrupt(err) || !errors.Is(err, kv.ErrCorrupt) {
		t.Fatalf("store.Open over a Pact database: %v", err)
	}
	return err
}
