package result

import (
	"fmt"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/ledgernode/ledger-node/pact/crypto"
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/value"
)

// hashTxLogsStreamed is HashTxLogs the slow way: each write hashed as it is
// encoded, into a digest.
func hashTxLogsStreamed(logs []db.TxLog) string {
	h, _ := blake2b.New256(nil)
	for _, l := range logs {
		domain := l.Table
		if l.Domain != db.UserTable {
			domain = l.Domain.String()
		}
		h.Write([]byte("D" + domain + "K" + l.Key + "V"))
		h.Write(appendSystemValue(nil, l.Value))
	}
	return crypto.EncodeBase64URL(h.Sum(nil))
}

// The logs hash is the same appended after other bytes as alone, and the
// same as a digest fed write by write; the bytes before it are kept.
func TestTxLogsHash(t *testing.T) {
	var logs []db.TxLog
	for n := 0; n <= 40; n++ {
		if n%7 == 3 {
			logs = append(logs, db.TxLog{Domain: db.KeySets, Key: fmt.Sprint("ks", n), Value: value.String("a keyset stand-in")})
		} else if n > 0 {
			logs = append(logs, db.TxLog{Domain: db.UserTable, Table: "coin_coin-table", Key: fmt.Sprint("k", n),
				Value: value.NewObject(value.Field{Key: "balance", Val: value.NewInt(int64(n))})})
		}
		want := hashTxLogsStreamed(logs)
		if got := HashTxLogs(logs); got != want {
			t.Fatalf("%d writes: %s, streamed %s", n, got, want)
		}
		prefix := []byte(`{"reqKey":"abc","logs":"`)
		got := appendTxLogsHash(append(make([]byte, 0, n), prefix...), logs)
		if string(got) != string(prefix)+want {
			t.Fatalf("%d writes after a prefix: %s", n, got)
		}
	}
}

// AppendString's plain-ASCII shortcut writes what its general path writes:
// invalid bytes each replaced by U+FFFD, then aeson's escapes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "alice", "a\"b", "\x00", "é", "\xff\xfe", "k:6be2f485a7af"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := jsontext.AppendString([]byte("["), string([]rune(s)))
		if got := AppendString([]byte("["), s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
