package eval

import (
	"github.com/ledgernode/ledger-node/pact/db"
	"github.com/ledgernode/ledger-node/pact/value"
)

// The database natives (spec §3.7).

func tableArg(c Call, a []value.Value) (*value.Table, error) {
	t, ok := a[0].(*value.Table)
	if !ok {
		return nil, c.argsErr(a)
	}
	return t, nil
}

// tableAccess checks that the caller may touch the table: from its own
// module, with module admin, or (reads with AllowReadInLocal) anyone.
func (in *Interp) tableAccess(t *value.Table, read bool) error {
	if in.sysOnly > 0 {
		return &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Operation disallowed in read-only or sys-only mode"}
	}
	if in.inModule(t.Module) || in.tx.admin[t.Module] {
		return in.checkBlessed(t)
	}
	if read && in.Flags["AllowReadInLocal"] {
		return nil
	}
	if err := in.requireAdmin(t.Module); err != nil {
		return err
	}
	return in.checkBlessed(t)
}

func (in *Interp) checkBlessed(t *value.Table) error {
	m, err := in.loadModule(t.Module)
	if err != nil {
		return err
	}
	if m == nil {
		return value.EvalError("Cannot find module: " + t.Module.String())
	}
	if t.Hash != m.Hash && !m.Blessed[t.Hash] {
		return value.EvalError("Execution aborted, hash not blessed for module " + t.Module.String() + ": " + t.Hash)
	}
	return nil
}

func nativeCreateTable(c Call, a []value.Value) (value.Value, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	in := c.in
	if err := in.requireAdmin(t.Module); err != nil {
		return nil, err
	}
	if in.readOnly > 0 {
		return nil, &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Operation disallowed in read-only or sys-only mode"}
	}
	if err := in.DB.CreateTable(t.FullName()); err != nil {
		if err == db.ErrTableExists {
			return nil, &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Table " + t.FullName() + " already exists"}
		}
		return nil, dbErr(err)
	}
	return value.String("TableCreated"), nil
}

func schemaMismatch(s *value.Schema, o *value.Object) *value.Error {
	return value.EvalError("Attempted insert failed due to schema mismatch. Expected: " + schemaText(s) + ", received " + value.Pretty(o))
}

func schemaText(s *value.Schema) string {
	out := "{"
	for i, f := range s.Fields {
		if i > 0 {
			out += ","
		}
		out += f.Name + ":" + f.Type.String()
	}
	return out + "}"
}

func nativeWrite(kind string) func(c Call, a []value.Value) (value.Value, error) {
	return func(c Call, a []value.Value) (value.Value, error) {
		t, err := tableArg(c, a)
		if err != nil {
			return nil, err
		}
		key, ok1 := a[1].(value.String)
		obj, ok2 := a[2].(*value.Object)
		if !ok1 || !ok2 {
			return nil, c.argsErr(a)
		}
		in := c.in
		if err := in.tableAccess(t, false); err != nil {
			return nil, err
		}
		// P5 checks the schema (charging its ticks), then charges the
		// estimated size of the object as given (not the merged row of an
		// update), and only then writes, which is where read-only fails.
		var fits bool
		if kind == "update" {
			fits, err = in.typeCheckPartial(obj, &t.Schema)
		} else {
			fits, err = in.typeCheckObject(obj, &t.Schema)
		}
		if err != nil {
			return nil, err
		}
		if !fits {
			return nil, schemaMismatch(&t.Schema, obj)
		}
		if in.metered() {
			sz, err := in.sizeOfFields(obj)
			if err != nil {
				return nil, err
			}
			if err := in.chargeWrite(sz); err != nil {
				return nil, err
			}
		}
		if in.readOnly > 0 {
			return nil, &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Operation disallowed in read-only or sys-only mode"}
		}
		wt := db.Write
		switch kind {
		case "insert":
			wt = db.Insert
		case "update":
			wt = db.Update
			old, found, err := in.DB.Read(db.UserTable, t.FullName(), string(key))
			if err != nil {
				return nil, in.tableErr(t, err)
			}
			if !found {
				return nil, &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: No row found during update in table " +
					t.FullName() + " at key " + string(key)}
			}
			obj = obj.UnionIn(old.(*value.Object), &in.alloc.objects)
		}
		if err := in.DB.Write(db.UserTable, t.FullName(), string(key), obj, wt); err != nil {
			if err == db.ErrRowExists {
				return nil, &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Value already found while in Insert mode in table " +
					t.FullName() + " at key \"" + string(key) + "\""}
			}
			return nil, in.tableErr(t, err)
		}
		return value.String("Write succeeded"), nil
	}
}

func (in *Interp) tableErr(t *value.Table, err error) error {
	if err == db.ErrNoTable {
		return &value.Error{Kind: value.ErrDB, Msg: "Error during database operation: Table " + t.FullName() + " not found"}
	}
	return dbErr(err)
}

func (in *Interp) readRow(t *value.Table, key string) (*value.Object, bool, error) {
	if err := in.tableAccess(t, true); err != nil {
		return nil, false, err
	}
	v, found, err := in.DB.Read(db.UserTable, t.FullName(), key)
	if err != nil {
		return nil, false, in.tableErr(t, err)
	}
	if !found {
		return nil, false, nil
	}
	row := v.(*value.Object)
	// A row read costs its estimated size, whatever fields are kept.
	if in.metered() {
		sz, err := in.sizeOfFields(row)
		if err != nil {
			return nil, false, err
		}
		if err := in.chargeRead(sz); err != nil {
			return nil, false, err
		}
	}
	return row, true, nil
}

func noSuchRow(t *value.Table, key string) *value.Error {
	return value.UserError("No value found in table " + t.FullName() + " for key: " + key)
}

func columns(c Call, a []value.Value, v value.Value) ([]string, error) {
	l, ok := v.(value.List)
	if !ok {
		return nil, c.argsErr(a)
	}
	out := make([]string, len(l))
	for i, x := range l {
		s, ok := x.(value.String)
		if !ok {
			return nil, c.argsErr(a)
		}
		out[i] = string(s)
	}
	return out, nil
}

// mustReadRow is (read table key): the row, or P5's recoverable "No value
// found" error.
func mustReadRow(c Call, a []value.Value) (*value.Object, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	key, ok := a[1].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	row, found, err := c.in.readRow(t, string(key))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, noSuchRow(t, string(key))
	}
	return row, nil
}

func nativeRead(c Call, a []value.Value) (value.Value, error) {
	var cols []string
	if len(a) == 3 {
		// The field names are checked before the row is read (P5).
		var err error
		if cols, err = columns(c, a, a[2]); err != nil {
			return nil, err
		}
	}
	row, err := mustReadRow(c, a)
	if err != nil {
		return nil, err
	}
	if len(cols) > 0 {
		return row.Restrict(cols), nil
	}
	return row, nil
}

func nativeKeys(c Call, a []value.Value) (value.Value, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	if err := c.in.tableAccess(t, true); err != nil {
		return nil, err
	}
	ks, err := c.in.DB.Keys(db.UserTable, t.FullName())
	if err != nil {
		return nil, c.in.tableErr(t, err)
	}
	out := make(value.List, len(ks))
	for i, k := range ks {
		out[i] = value.String(k)
	}
	return out, nil
}

// rows iterates a table in key order.
func (in *Interp) rows(t *value.Table, f func(key string, row *value.Object) error) error {
	if err := in.tableAccess(t, true); err != nil {
		return err
	}
	ks, err := in.DB.Keys(db.UserTable, t.FullName())
	if err != nil {
		return in.tableErr(t, err)
	}
	for _, k := range ks {
		v, found, err := in.DB.Read(db.UserTable, t.FullName(), k)
		if err != nil {
			return in.tableErr(t, err)
		}
		if !found {
			continue
		}
		if err := f(k, v.(*value.Object)); err != nil {
			return err
		}
	}
	return nil
}

func nativeSelect(c Call, a []value.Value) (value.Value, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	var cols []string
	where := a[1]
	if len(a) == 3 {
		if cols, err = columns(c, a, a[1]); err != nil {
			return nil, err
		}
		where = a[2]
	}
	out := value.List{}
	err = c.in.rows(t, func(_ string, row *value.Object) error {
		ok, err := applyBool(c, where, row)
		if err != nil {
			return err
		}
		if ok {
			if cols != nil {
				out = append(out, row.Restrict(cols))
			} else {
				out = append(out, row)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nativeFoldDB is fold-db: P5 first runs the query over every row in key
// order, then the consumer over the rows kept, last kept first, and lists
// the results in key order.
func nativeFoldDB(c Call, a []value.Value) (value.Value, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	type kept struct {
		key string
		row *value.Object
	}
	var rows []kept
	err = c.in.rows(t, func(k string, row *value.Object) error {
		keep, err := asBool(c.in.apply(a[1], []value.Value{value.String(k), row}, c.loc))
		if err == nil && keep {
			rows = append(rows, kept{k, row})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(value.List, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		r, err := c.in.apply(a[2], []value.Value{value.String(rows[i].key), rows[i].row}, c.loc)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func nativeWithRead(c Call, a []value.Value) (value.Value, error) {
	row, err := mustReadRow(c, a)
	if err != nil {
		return nil, err
	}
	return c.in.apply(a[2], c.in.one(row), c.loc)
}

func nativeWithDefaultRead(c Call, a []value.Value) (value.Value, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	key, ok1 := a[1].(value.String)
	def, ok2 := a[2].(*value.Object)
	if !ok1 || !ok2 {
		return nil, c.argsErr(a)
	}
	row, found, err := c.in.readRow(t, string(key))
	if err != nil {
		return nil, err
	}
	if !found {
		row = def
	}
	return c.in.apply(a[3], c.in.one(row), c.loc)
}

func nativeDescribeTable(c Call, a []value.Value) (value.Value, error) {
	t, err := tableArg(c, a)
	if err != nil {
		return nil, err
	}
	return value.NewObject(
		value.Field{Key: "module", Val: value.String(t.Module.String())},
		value.Field{Key: "name", Val: value.String(t.Name)},
		value.Field{Key: "type", Val: value.String("table{" + t.Schema.Name.String() + "}")},
	), nil
}

func nativeDescribeKeyset(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	r, err := parseKeysetRef(string(s))
	if err != nil {
		return nil, err
	}
	ks, err := c.in.readKeyset(r)
	if err != nil {
		return nil, err
	}
	return ks, nil
}

func nativeDescribeModule(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	mn, ok := value.ParseModuleName(string(s))
	if !ok {
		return nil, value.EvalError("Cannot find module: " + string(s))
	}
	m, err := c.in.resolveModuleData(mn)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, value.EvalError("Cannot find module: " + string(s))
	}
	if err := c.in.localOnly("describe-module"); err != nil {
		return nil, err
	}
	// P5 describe-module: name, hash, tx_hash, code, and for a module its
	// interfaces.
	fs := []value.Field{{Key: "name", Val: value.String(m.Name.String())}, {Key: "hash", Val: value.String(m.Hash)},
		{Key: "tx_hash", Val: value.String(m.TxHash)}, {Key: "code", Val: value.String(m.Code)}}
	if !m.Interface {
		ifaces := make(value.List, len(m.Implements))
		for i, n := range m.Implements {
			ifaces[i] = value.String(n.String())
		}
		fs = append(fs, value.Field{Key: "interfaces", Val: ifaces})
	}
	return value.NewObject(fs...), nil
}

// localOnly is the DisableHistoryInTransactionalMode check.
func (in *Interp) localOnly(native string) error {
	if in.Flags["DisableHistoryInTransactionalMode"] && in.Mode == db.Transactional {
		return value.EvalError("Operation only permitted in local execution mode: " + native)
	}
	return nil
}

func nativeListModules(c Call, a []value.Value) (value.Value, error) {
	if err := c.in.localOnly("list-modules"); err != nil {
		return nil, err
	}
	ks, err := c.in.DB.Keys(db.Modules, "")
	if err != nil {
		return nil, dbErr(err)
	}
	out := make(value.List, len(ks))
	for i, k := range ks {
		out[i] = value.String(k)
	}
	return out, nil
}

// nativeStaticRedeploy writes a module's stored data again, as it is: P5
// charges the write by the data's estimated size (and the source's, when
// the stored data holds it, which ours never does: the source is kept
// apart).
func nativeStaticRedeploy(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	mn, _ := value.ParseModuleName(string(s))
	m, err := c.in.resolveModuleData(mn)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, value.EvalError("Cannot find module: " + string(s))
	}
	if c.in.metered() && m.image != nil {
		sz := m.image.DataSize
		if budget := c.in.Gas.SizeBudget(); sz > budget {
			return nil, c.in.chargeConst(gasMul(budget+1, c.in.cfg().SizeOfBytePenalty))
		}
		if err := c.in.chargeWrite(sz); err != nil {
			return nil, err
		}
	}
	return value.UnitValue, c.in.write(db.Modules, "", m.Name.String(), m)
}

// Namespaces.

// Namespace is a defined namespace.
type Namespace struct {
	Name  string
	User  value.Value
	Admin value.Value
}

func validNamespaceName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7
		if i == 0 {
			if !letter {
				return false
			}
			continue
		}
		if !letter && !(r >= '0' && r <= '9') && !containsRune("%#+-_&$@<>=^?*!|/~", r) {
			return false
		}
	}
	return true
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

func (in *Interp) readNamespace(name string) (*Namespace, error) {
	v, ok, err := in.DB.Read(db.Namespaces, "", name)
	if err != nil {
		return nil, dbErr(err)
	}
	if !ok {
		return nil, value.EvalError("Namespace not found: " + name)
	}
	return v.(*Namespace), nil
}

func (in *Interp) enforceNamespaceUser(name string) error {
	ns, err := in.readNamespace(name)
	if err != nil {
		return err
	}
	return in.withMagicCap(magicCap("NAMESPACE", name), func() error { return in.enforceGuard(ns.User) })
}

func nativeNamespace(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	if s == "" {
		c.in.namespace = ""
		return value.String("Namespace reset to root"), nil
	}
	if _, err := c.in.chargedNamespace(string(s)); err != nil {
		return nil, err
	}
	c.in.namespace = string(s)
	return value.String("Namespace set to " + string(s)), nil
}

// chargedNamespace reads a namespace as P5's namespace natives do: a read
// charge for the name, then for the record found.
func (in *Interp) chargedNamespace(name string) (*Namespace, error) {
	if err := in.chargeRead(uint64(value.CharCount(name))); err != nil {
		return nil, err
	}
	ns, err := in.readNamespace(name)
	if err != nil {
		return nil, err
	}
	if in.metered() {
		sz, err := in.sizeOfNamespace(ns)
		if err != nil {
			return nil, err
		}
		if err := in.chargeRead(sz); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

func nativeDefineNamespace(c Call, a []value.Value) (value.Value, error) {
	in := c.in
	name, ok := a[0].(value.String)
	if !ok || a[1].Kind() != value.KindGuard || a[2].Kind() != value.KindGuard {
		return nil, c.argsErr(a)
	}
	if !validNamespaceName(string(name)) {
		return nil, value.NativeError("define-namespace", "invalid namespace format")
	}
	if err := in.chargeRead(uint64(value.CharCount(string(name)))); err != nil {
		return nil, err
	}
	old, found, err := in.DB.Read(db.Namespaces, "", string(name))
	if err != nil {
		return nil, dbErr(err)
	}
	ns := &Namespace{Name: string(name), User: a[1], Admin: a[2]}
	if found {
		if in.metered() {
			sz, err := in.sizeOfNamespace(old.(*Namespace))
			if err != nil {
				return nil, err
			}
			if err := in.chargeRead(sz); err != nil {
				return nil, err
			}
		}
		err := in.withMagicCap(magicCap("DEFINE_NAMESPACE", string(name)), func() error {
			return in.enforceGuard(old.(*Namespace).Admin)
		})
		if err != nil {
			return nil, err
		}
	} else if in.NamespacePolicy.Fn != nil {
		// P5 reads the policy function's module.
		if f, ok := in.NamespacePolicy.Fn.(*Closure); ok && f.def != nil && f.def.Module != nil {
			if _, err := in.loadModule(f.def.Module.Name); err != nil {
				return nil, err
			}
		}
		v, err := in.apply(in.NamespacePolicy.Fn, []value.Value{name, a[2]}, c.loc)
		if err != nil {
			return nil, err
		}
		if b, _ := v.(value.Bool); !b {
			return nil, value.EvalError("Namespace definition not permitted")
		}
	}
	if in.metered() {
		sz, err := in.sizeOfNamespace(ns)
		if err != nil {
			return nil, err
		}
		if err := in.chargeWrite(sz); err != nil {
			return nil, err
		}
	}
	if err := in.write(db.Namespaces, "", string(name), ns); err != nil {
		return nil, err
	}
	return value.String("Namespace defined: " + string(name)), nil
}

func nativeDescribeNamespace(c Call, a []value.Value) (value.Value, error) {
	s, ok := a[0].(value.String)
	if !ok {
		return nil, c.argsErr(a)
	}
	ns, err := c.in.chargedNamespace(string(s))
	if err != nil {
		return nil, err
	}
	return value.NewObject(
		value.Field{Key: "admin-guard", Val: ns.Admin},
		value.Field{Key: "namespace-name", Val: value.String(ns.Name)},
		value.Field{Key: "user-guard", Val: ns.User},
	), nil
}
