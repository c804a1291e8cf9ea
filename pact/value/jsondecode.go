package value

// Decoding JSON into values, as P5's FromJSON (StableEncoding PactValue)
// does for message data and env-data. Each JSON value is tried against the
// value shapes in P5's order, the first that parses winning:
//
//  1. literals: null is unit, booleans, strings; any number is a DECIMAL
//     (even 1); {"int": n|"n"} is an integer; {"decimal": "s"} a decimal;
//  2. arrays are lists;
//  3. guards: {"keys": [...], "pred"?: p} (keyset), {"keysetref": ...},
//     {"fun", "args"} (user), {"cgName", "cgArgs", "cgPactId"?}
//     (capability), {"moduleName", "name"} (module), {"pactId", "name"}
//     (pact);
//  4. {"refName", "refSpec"?}: module reference;
//  5. {"time": ISO8601} or {"timep": ISO8601 with microseconds};
//  6. {"#ctName", "#ctArgs"}: capability token;
//  7. {":tableName", ":moduleHash", ":schema"}: table reference;
//  8. any other object is an object.
//
// Extra keys never stop a shape from matching, as with aeson's parsers.

// DecodeJSON decodes one JSON document (surrounding whitespace allowed).
func DecodeJSON(data []byte) (Value, error) {
	n, err := parseJSONTree(data)
	if err != nil {
		return nil, err
	}
	return n.toValue()
}

func (n *jnode) field(k string) (*jnode, bool) {
	if n.kind != 'o' {
		return nil, false
	}
	v, ok := n.obj[k]
	return v, ok
}

// optField is aeson's .:? — missing and null are both absent.
func (n *jnode) optField(k string) (*jnode, bool) {
	v, ok := n.field(k)
	if !ok || v.kind == 'n' {
		return nil, false
	}
	return v, true
}

func (n *jnode) text(k string) (string, bool) {
	v, ok := n.field(k)
	if !ok || v.kind != 's' {
		return "", false
	}
	return v.str, true
}

func (n *jnode) toValue() (Value, error) {
	switch n.kind {
	case 'n':
		return UnitValue, nil
	case 'b':
		return Bool(n.b), nil
	case 's':
		return String(n.str), nil
	case 'd':
		return numberToDecimal(n.str)
	case 'a':
		return n.toList(n.arr)
	}
	// Objects: try the shapes in order.
	if v, ok := n.field("int"); ok {
		switch v.kind {
		case 'd':
			return numberToInteger(v.str)
		case 's':
			if i, ok := ReadInteger(v.str); ok {
				return i, nil
			}
		}
	}
	if s, ok := n.text("decimal"); ok {
		if d, ok := ReadDecimal(s); ok {
			return d, nil
		}
	}
	for _, shape := range []func() (Value, bool, error){
		n.asKeySet, n.asKeySetRef, n.asUserGuard, n.asCapabilityGuard, n.asModuleGuard,
		n.asPactGuard, n.asModRef, n.asTime, n.asCapToken, n.asTable,
	} {
		if v, ok, err := shape(); err != nil || ok {
			return v, err
		}
	}
	vals := make([]Value, len(n.keys))
	for i, k := range n.keys {
		v, err := n.obj[k].toValue()
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return newObjectSorted(n.keys, vals), nil
}

func (n *jnode) toList(arr []*jnode) (List, error) {
	out := make(List, len(arr))
	for i, e := range arr {
		v, err := e.toValue()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// listField decodes an array field of values.
func (n *jnode) listField(k string) ([]Value, bool, error) {
	v, ok := n.field(k)
	if !ok || v.kind != 'a' {
		return nil, false, nil
	}
	l, err := n.toList(v.arr)
	return l, err == nil, err
}

func (n *jnode) asKeySet() (Value, bool, error) {
	ks, ok := n.field("keys")
	if !ok || ks.kind != 'a' {
		return nil, false, nil
	}
	keys := make([]string, len(ks.arr))
	for i, k := range ks.arr {
		if k.kind != 's' {
			return nil, false, nil
		}
		keys[i] = k.str
	}
	pred := KeysAll
	if p, ok := n.optField("pred"); ok {
		if p.kind != 's' || !(p.str == KeysAll || p.str == KeysAny || p.str == Keys2 || validPredName(p.str)) {
			return nil, false, nil
		}
		pred = p.str
	}
	return NewKeySet(keys, pred), true, nil
}

func (n *jnode) asKeySetRef() (Value, bool, error) {
	r, ok := n.field("keysetref")
	if !ok {
		return nil, false, nil
	}
	switch r.kind {
	case 's':
		return &KeySetRef{Name: r.str}, true, nil
	case 'o':
		name, ok := r.text("ksn")
		if !ok {
			return nil, false, nil
		}
		ref := &KeySetRef{Name: name}
		if ns, ok := r.optField("ns"); ok {
			if ns.kind != 's' {
				return nil, false, nil
			}
			ref.Namespace = ns.str
		}
		return ref, true, nil
	}
	return nil, false, nil
}

func (n *jnode) asUserGuard() (Value, bool, error) {
	f, ok := n.text("fun")
	if !ok {
		return nil, false, nil
	}
	q, ok := ParseQualifiedName(f)
	if !ok {
		return nil, false, nil
	}
	args, ok, err := n.listField("args")
	if !ok {
		return nil, false, err
	}
	return &UserGuard{Fun: q, Args: args}, true, nil
}

func (n *jnode) asCapabilityGuard() (Value, bool, error) {
	name, ok := n.text("cgName")
	if !ok {
		return nil, false, nil
	}
	q, ok := ParseQualifiedName(name)
	if !ok {
		return nil, false, nil
	}
	args, ok, err := n.listField("cgArgs")
	if !ok {
		return nil, false, err
	}
	g := &CapabilityGuard{Name: q, Args: args}
	if pid, ok := n.optField("cgPactId"); ok {
		if pid.kind != 's' {
			return nil, false, nil
		}
		g.PactID, g.HasPactID = pid.str, true
	}
	return g, true, nil
}

// moduleName decodes {"namespace"?: ns, "name": n}; the name must parse
// as a module name but is kept as written.
func (n *jnode) moduleName() (ModuleName, bool) {
	if n.kind != 'o' {
		return ModuleName{}, false
	}
	name, ok := n.text("name")
	if !ok {
		return ModuleName{}, false
	}
	if _, ok := ParseModuleName(name); !ok {
		return ModuleName{}, false
	}
	m := ModuleName{Name: name}
	if ns, ok := n.optField("namespace"); ok {
		if ns.kind != 's' {
			return ModuleName{}, false
		}
		m.Namespace = ns.str
	}
	return m, true
}

func (n *jnode) asModuleGuard() (Value, bool, error) {
	mn, ok := n.field("moduleName")
	if !ok {
		return nil, false, nil
	}
	m, ok := mn.moduleName()
	if !ok {
		return nil, false, nil
	}
	name, ok := n.text("name")
	if !ok {
		return nil, false, nil
	}
	return &ModuleGuard{Module: m, Name: name}, true, nil
}

func (n *jnode) asPactGuard() (Value, bool, error) {
	pid, ok1 := n.text("pactId")
	name, ok2 := n.text("name")
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	return &PactGuard{PactID: pid, Name: name}, true, nil
}

func (n *jnode) moduleNames(v *jnode) ([]ModuleName, bool) {
	if v.kind != 'a' {
		return nil, false
	}
	out := make([]ModuleName, len(v.arr))
	for i, e := range v.arr {
		m, ok := e.moduleName()
		if !ok {
			return nil, false
		}
		out[i] = m
	}
	return out, true
}

func (n *jnode) asModRef() (Value, bool, error) {
	rn, ok := n.field("refName")
	if !ok {
		return nil, false, nil
	}
	m, ok := rn.moduleName()
	if !ok {
		return nil, false, nil
	}
	var imp []ModuleName
	if spec, ok := n.optField("refSpec"); ok {
		if imp, ok = n.moduleNames(spec); !ok {
			return nil, false, nil
		}
	}
	return NewModRef(m, imp), true, nil
}

func (n *jnode) asTime() (Value, bool, error) {
	if s, ok := n.text("time"); ok {
		if t, ok := ParseTime(ISO8601, s); ok {
			return t, true, nil
		}
	}
	if s, ok := n.text("timep"); ok {
		if t, ok := ParseTime(isoHighPrec, s); ok {
			return t, true, nil
		}
	}
	return nil, false, nil
}

func (n *jnode) asCapToken() (Value, bool, error) {
	name, ok := n.text("#ctName")
	if !ok {
		return nil, false, nil
	}
	fq, ok := ParseFullyQualifiedName(name)
	if !ok {
		return nil, false, nil
	}
	args, ok, err := n.listField("#ctArgs")
	if !ok {
		return nil, false, err
	}
	return &CapToken{Name: fq, Args: args}, true, nil
}

func (n *jnode) asTable() (Value, bool, error) {
	tn, ok := n.text(":tableName")
	if !ok {
		return nil, false, nil
	}
	m, name, ok := parseJSONTableName(tn)
	if !ok {
		return nil, false, nil
	}
	h, ok := n.text(":moduleHash")
	if !ok {
		return nil, false, nil
	}
	if h, ok = parseModuleHash(h); !ok {
		return nil, false, nil
	}
	sn, ok := n.field(":schema")
	if !ok {
		return nil, false, nil
	}
	sc, ok := sn.schema()
	if !ok {
		return nil, false, nil
	}
	return &Table{Name: name, Module: m, Hash: h, Schema: *sc}, true, nil
}

func (n *jnode) schema() (*Schema, bool) {
	if n.kind != 'o' {
		return nil, false
	}
	name, ok := n.text("sc_name")
	if !ok {
		return nil, false
	}
	q, ok := ParseQualifiedName(name)
	if !ok {
		return nil, false
	}
	fs, ok := n.field("sc_fields")
	if !ok || fs.kind != 'o' {
		return nil, false
	}
	sc := &Schema{Name: q}
	for _, k := range fs.keys {
		t, ok := fs.obj[k].typ()
		if !ok {
			return nil, false
		}
		sc.Fields = append(sc.Fields, SchemaField{Name: k, Type: *t})
	}
	return sc, true
}

func (n *jnode) typ() (*Type, bool) {
	switch n.kind {
	case 's':
		switch n.str {
		case "integer", "decimal", "string", "bool", "time", "guard", "unit":
			return &Type{Kind: TyPrim, Prim: n.str}, true
		case "list":
			return &Type{Kind: TyAnyList}, true
		case "object":
			return &Type{Kind: TyAnyObject}, true
		case "*":
			return &Type{Kind: TyAny}, true
		case "cap-token":
			return &Type{Kind: TyCapToken}, true
		}
	case 'o':
		if e, ok := n.field("tylist"); ok {
			if t, ok := e.typ(); ok {
				return &Type{Kind: TyList, Elem: t}, true
			}
		}
		if s, ok := n.field("tyobject"); ok {
			if sc, ok := s.schema(); ok {
				return &Type{Kind: TyObject, Schema: sc}, true
			}
		}
		if s, ok := n.field("tymodref"); ok {
			if ms, ok := n.moduleNames(s); ok {
				r := NewModRef(ModuleName{}, ms)
				return &Type{Kind: TyModRef, ModRefs: r.Implemented}, true
			}
		}
		if s, ok := n.field("tytable"); ok {
			if sc, ok := s.schema(); ok {
				return &Type{Kind: TyTable, Schema: sc}, true
			}
		}
	}
	return nil, false
}
