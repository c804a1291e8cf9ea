package private

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/transport/contractapi"
)

// The first start makes the entity key, readable by its owner only; a later start reads the same
// key back rather than making another (which would strand the results sealed for the first).
func TestEntityKeyMadeOnceAndKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private")
	first, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "entity.key")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("entity.key mode %v, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	pub := server.PublicBoxKey(first.secret)
	if !strings.Contains(string(data), "public: "+hex.EncodeToString(pub[:])+"\n") {
		t.Errorf("entity.key does not name the secret's public key:\n%s", data)
	}
	second, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if second.secret != first.secret {
		t.Error("a second start made a new key instead of reading the first")
	}
	if second.entity != server.DefaultEntity {
		t.Errorf("entity %q, want the default %q", second.entity, server.DefaultEntity)
	}
}

// A configured secret is used as it is, and no key file is made.
func TestConfiguredSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private")
	secret := [32]byte{1, 2, 3}
	p, err := Open(Config{Dir: dir, Entity: "alice", EntitySecret: &secret})
	if err != nil {
		t.Fatal(err)
	}
	if p.secret != secret || p.entity != "alice" {
		t.Errorf("secret %x entity %q", p.secret, p.entity)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private directory was made: %v", err)
	}
}

func TestEntityKeyFileErrors(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"no secret":  {"public: 00\n", "entity.key: no secret key"},
		"bad secret": {"secret: zz\n", "entity.key: secret: "},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "entity.key"), []byte(c.doc), 0o600)
		_, err := Open(Config{Dir: dir})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// A chain's engine opens on its first private command, in a directory of its own, and only
// then: poll and listen do not open one. After Close a private command is refused.
func TestEnginesOpenLazilyAndClose(t *testing.T) {
	dir := t.TempDir()
	p, err := Open(Config{Dir: dir, Network: "development"})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := p.engine(3, false); e != nil || err != nil {
		t.Fatalf("engine before any private command: %v %v", e, err)
	}
	e, err := p.engine(3, true)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := p.engine(3, false); again != e {
		t.Error("the chain's engine was not kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "3")); err != nil {
		t.Errorf("chain 3's private state: %v", err)
	}
	p.Close()
	_, err = p.Contract(4, nil, nil).Private(context.Background(), []byte(`{}`))
	if !errors.Is(err, contractapi.ErrClosed) {
		t.Fatalf("private command after Close: %v, want ErrClosed", err)
	}
}
