package db

import (
	"errors"
	"slices"
)

// MemDB is the in-memory DB, modelled on P5's mock persistence
// (Pact.Core.Persistence.MockPersistence):
//
//   - outside a transaction a write takes effect at once and is not logged;
//   - BeginTx while a transaction is open is ErrInTx, CommitTx and RollbackTx
//     without one are ErrNotInTx;
//   - RollbackTx puts every domain and user table back as it was at BeginTx,
//     dropping tables created since;
//   - transaction ids start at 0 and advance only on a Transactional commit,
//     so the transaction after a rollback (or after a Local commit) gets the
//     same id again.
//
// P5 snapshots every table at begin-tx. MemDB instead keeps an undo log: the
// first write to a key inside a transaction records the key's previous
// state, and rollback replays those records backwards. Opening a
// transaction therefore costs nothing, whatever the size of the database.
//
// Values are stored as given and never copied; callers hand over immutable
// values (the interpreter's values are). MemDB is not safe for concurrent
// use.
type MemDB struct {
	sys    [numDomains]map[string]any // indexed by Domain; UserTable unused
	tables map[string]map[string]any
	// lastTable and lastRows are the user table rowsFor found last: a
	// transaction reads and writes a few rows of one or two tables, and
	// a string comparison costs less than a map lookup. Dropping a table
	// forgets them.
	lastTable string
	lastRows  map[string]any

	nextID TxID
	tx     *memTx // nil when no transaction is open
	// spare is the bookkeeping of the last transaction, emptied: the next
	// one uses its undo log's array and its seen map again (a REPL script,
	// or a benchmark, runs many small transactions).
	spare *memTx
}

// numDomains is one past the last Domain constant.
const numDomains = int(DefPacts) + 1

// memTx is the open transaction's bookkeeping.
type memTx struct {
	mode Mode
	id   TxID
	log  []TxLog
	undo []undoEntry
	// seen holds the rows whose previous state is already in undo, once
	// undo is longer than seenAfter; shorter, undo itself is searched
	// (a transaction writes a few rows: a scan is cheaper than hashing).
	seen map[rowRef]struct{}
}

// seenAfter is the length of the undo log past which memTx.seen indexes
// it.
const seenAfter = 16

// saved reports whether ref's state before the transaction is in the undo
// log already.
func (tx *memTx) saved(ref rowRef) bool {
	if tx.seen == nil {
		if len(tx.undo) < seenAfter {
			for i := range tx.undo {
				if u := &tx.undo[i]; !u.dropTable && u.ref == ref {
					return true
				}
			}
			return false
		}
		tx.seen = make(map[rowRef]struct{}, 2*seenAfter)
		for _, u := range tx.undo {
			if !u.dropTable {
				tx.seen[u.ref] = struct{}{}
			}
		}
	}
	_, ok := tx.seen[ref]
	return ok
}

// rowRef names one row: a system domain key (table empty) or a user row.
type rowRef struct {
	d     Domain
	table string
	key   string
}

// undoEntry restores one row to its state before the transaction, or, when
// dropTable is set, removes a table the transaction created.
type undoEntry struct {
	ref       rowRef
	dropTable bool
	existed   bool
	value     any
}

var errBadDomain = errors.New("unknown domain")

// NewMemDB returns an empty database whose first transaction is id 0.
func NewMemDB() *MemDB {
	m := &MemDB{tables: make(map[string]map[string]any)}
	for d := range m.sys {
		if Domain(d) != UserTable {
			m.sys[d] = make(map[string]any)
		}
	}
	return m
}

// BeginTx opens a transaction in the given mode and returns its id.
func (m *MemDB) BeginTx(mode Mode) (TxID, error) {
	if m.tx != nil {
		return 0, ErrInTx
	}
	tx := m.spare
	if tx == nil {
		tx = &memTx{}
	}
	m.spare = nil
	tx.mode, tx.id = mode, m.nextID
	m.tx = tx
	return m.nextID, nil
}

// spareLimit is the most rows a transaction may have written for its
// bookkeeping to be kept for the next one: clearing a map costs its size.
const spareLimit = 64

// end closes tx, keeping its bookkeeping, emptied, for the next one.
func (m *MemDB) end(tx *memTx) {
	m.tx = nil
	if len(tx.undo) > spareLimit {
		return
	}
	clear(tx.undo)
	tx.undo, tx.log, tx.seen = tx.undo[:0], nil, nil
	m.spare = tx
}

// CommitTx ends the transaction and returns its writes in the order they
// were made. A Transactional commit keeps the writes and advances the next
// id; a Local commit undoes them, like RollbackTx, and leaves the id alone.
//
// P5's mock DB loses the log of a Local commit (it reads the log back after
// restoring the pre-transaction log); here the log is returned in both
// modes.
func (m *MemDB) CommitTx() ([]TxLog, error) {
	tx := m.tx
	if tx == nil {
		return nil, ErrNotInTx
	}
	if tx.mode == Local {
		m.undoAll(tx)
	} else {
		m.nextID++
	}
	log := tx.log
	m.end(tx)
	return log, nil
}

// RollbackTx ends the transaction, dropping all its writes and the tables
// it created.
func (m *MemDB) RollbackTx() error {
	tx := m.tx
	if tx == nil {
		return ErrNotInTx
	}
	m.undoAll(tx)
	m.end(tx)
	return nil
}

// InTx reports whether a transaction is open.
func (m *MemDB) InTx() bool { return m.tx != nil }

// undoAll replays the undo log backwards.
func (m *MemDB) undoAll(tx *memTx) {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := &tx.undo[i]
		if u.dropTable {
			delete(m.tables, u.ref.table)
			m.lastTable, m.lastRows = "", nil
			continue
		}
		rows := m.rowsFor(u.ref.d, u.ref.table)
		if rows == nil {
			// Unreachable: a table's drop entry precedes its rows' entries,
			// so backwards it is replayed after them.
			continue
		}
		if u.existed {
			rows[u.ref.key] = u.value
		} else {
			delete(rows, u.ref.key)
		}
	}
}

// rowsFor returns the map holding d's rows (the user table's for
// UserTable), or nil if there is none.
func (m *MemDB) rowsFor(d Domain, table string) map[string]any {
	if d == UserTable {
		if m.lastRows != nil && table == m.lastTable {
			return m.lastRows
		}
		rows := m.tables[table]
		if rows != nil {
			m.lastTable, m.lastRows = table, rows
		}
		return rows
	}
	if int(d) >= numDomains {
		return nil
	}
	return m.sys[d]
}

// lookup is rowsFor with the interface's errors.
func (m *MemDB) lookup(d Domain, table string) (map[string]any, error) {
	rows := m.rowsFor(d, table)
	if rows != nil {
		return rows, nil
	}
	if d == UserTable {
		return nil, ErrNoTable
	}
	return nil, errBadDomain
}

// Read returns the value under key.
func (m *MemDB) Read(d Domain, table, key string) (any, bool, error) {
	rows, err := m.lookup(d, table)
	if err != nil {
		return nil, false, err
	}
	v, ok := rows[key]
	return v, ok, nil
}

// Write stores value under key. Insert on a present key is ErrRowExists,
// Update on an absent one ErrNoRow; the write type is honoured for the
// system domains too (P5 ignores it there, but only ever passes Write).
// Inside a transaction the write is logged and undoable.
func (m *MemDB) Write(d Domain, table, key string, value any, wt WriteType) error {
	rows, err := m.lookup(d, table)
	if err != nil {
		return err
	}
	old, exists := rows[key]
	if err := wt.Allows(exists); err != nil {
		return err
	}
	if tx := m.tx; tx != nil {
		ref := rowRef{d: d, key: key}
		if d == UserTable {
			ref.table = table
		}
		if !tx.saved(ref) {
			tx.undo = append(tx.undo, undoEntry{ref: ref, existed: exists, value: old})
			if tx.seen != nil {
				tx.seen[ref] = struct{}{}
			}
		}
		if tx.log == nil {
			// Room for the writes of a typical transaction at once
			// (appending from nothing grows it three times by then).
			tx.log = make([]TxLog, 0, 8)
		}
		tx.log = append(tx.log, TxLog{Domain: d, Table: ref.table, Key: key, Value: value})
	}
	rows[key] = value
	return nil
}

// Keys lists the keys of a domain or user table in ascending byte order.
func (m *MemDB) Keys(d Domain, table string) ([]string, error) {
	rows, err := m.lookup(d, table)
	if err != nil {
		return nil, err
	}
	ks := make([]string, 0, len(rows))
	for k := range rows {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks, nil
}

// CreateTable creates an empty user table. Inside a transaction a rollback
// removes it again. Table creation is not a row write and is not in the
// TxLog (P5 logs it under "SYS:usertables", which has no Domain here).
func (m *MemDB) CreateTable(table string) error {
	if _, ok := m.tables[table]; ok {
		return ErrTableExists
	}
	m.tables[table] = make(map[string]any)
	if tx := m.tx; tx != nil {
		tx.undo = append(tx.undo, undoEntry{ref: rowRef{d: UserTable, table: table}, dropTable: true})
	}
	return nil
}

// HasTable reports whether a user table exists.
func (m *MemDB) HasTable(table string) bool {
	_, ok := m.tables[table]
	return ok
}

var _ DB = (*MemDB)(nil)
