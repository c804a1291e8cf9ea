package pactsrvtest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/ledgernode/ledger-node/internal/hangguard"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport/contracthttp"
)

// Start runs a pact -s server with a default in-memory engine on 127.0.0.1 and a free port,
// and returns its base URL ("http://127.0.0.1:PORT") and the server. The test's cleanup shuts
// both down.
func Start(t testing.TB) (string, *contracthttp.ContractServer) {
	t.Helper()
	e, err := server.Open(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := contracthttp.NewContractServer(contracthttp.ContractServerConfig{
		API: e, Version: "pact version 5.4",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangguard.Limit)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
		e.Close()
	})
	return "http://" + ln.Addr().String(), srv
}
