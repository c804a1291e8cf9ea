package db

import "errors"

// Domain names one of the interpreter's key spaces.
type Domain uint8

const (
	// UserTable is a deftable's rows; the table name is its full name
	// ("mod_table", or "ns.mod_table").
	UserTable Domain = iota
	// KeySets holds define-keyset keysets by name.
	KeySets
	// Modules holds modules and interfaces by name.
	Modules
	// Namespaces holds namespace definitions by name.
	Namespaces
	// DefPacts holds defpact states by pact id.
	DefPacts
)

func (d Domain) String() string {
	switch d {
	case UserTable:
		return "USER"
	case KeySets:
		return "SYS:KeySets"
	case Modules:
		return "SYS:Modules"
	case Namespaces:
		return "SYS:Namespaces"
	case DefPacts:
		return "SYS:Pacts"
	}
	return "unknown"
}

// WriteType says how a write treats an existing row.
type WriteType uint8

const (
	// Insert fails with ErrRowExists if the key is present.
	Insert WriteType = iota
	// Update fails with ErrNoRow if the key is absent. The caller has
	// already merged the partial row into the old one; the stored value is
	// replaced by the given value.
	Update
	// Write stores the value whatever is there.
	Write
)

// Allows reports whether a write of this type may go ahead on a key that exists or not: every
// db.DB implementation applies the same rule through it.
func (wt WriteType) Allows(exists bool) error {
	switch {
	case wt == Insert && exists:
		return ErrRowExists
	case wt == Update && !exists:
		return ErrNoRow
	}
	return nil
}

// Mode is the mode a transaction runs in.
type Mode uint8

const (
	// Transactional: writes are kept on commit.
	Transactional Mode = iota
	// Local: every change is rolled back at the end, whatever happens.
	Local
)

// TxID numbers committed transactions, from 0.
type TxID uint64

// TxLog is one write recorded during a transaction, in write order. Value is
// the stored value (for user tables a *eval.Object).
type TxLog struct {
	Domain Domain
	Table  string // user table name; empty for system domains
	Key    string
	Value  any
}

// Errors reported by implementations. The interpreter turns them into Pact
// errors with its own wording.
var (
	ErrRowExists   = errors.New("row found for key")
	ErrNoRow       = errors.New("no row found for key")
	ErrNoTable     = errors.New("table not found")
	ErrTableExists = errors.New("table already exists")
	ErrInTx        = errors.New("transaction already in progress")
	ErrNotInTx     = errors.New("not in transaction")
)

// DB is what the interpreter needs from storage. Outside a transaction,
// writes take effect at once (the REPL relies on that); inside one they
// become visible to reads at once and are kept or dropped by CommitTx or
// RollbackTx. Implementations need not be safe for concurrent use: one
// interpreter drives one DB.
type DB interface {
	// BeginTx opens a transaction and returns the id it will commit as.
	BeginTx(mode Mode) (TxID, error)
	// CommitTx keeps the transaction's writes (in Local mode it drops them)
	// and returns them in write order. The next transaction id increases
	// only on a kept commit.
	CommitTx() ([]TxLog, error)
	// RollbackTx drops the transaction's writes.
	RollbackTx() error
	// InTx reports whether a transaction is open.
	InTx() bool

	// Read returns the value under key. table is the user table name for
	// UserTable and ignored otherwise. A missing user table is ErrNoTable;
	// a missing key is (nil, false, nil).
	Read(d Domain, table, key string) (any, bool, error)
	// Write stores value under key as wt says.
	Write(d Domain, table, key string, value any, wt WriteType) error
	// Keys lists the keys of a domain or user table in ascending byte
	// order.
	Keys(d Domain, table string) ([]string, error)

	// CreateTable creates an empty user table; ErrTableExists if it exists.
	CreateTable(table string) error
	// HasTable reports whether a user table exists.
	HasTable(table string) bool
}
