package eval

import "github.com/ledgernode/ledger-node/pact/value"

// The values moved to package value (issue 33); these names keep the
// packages outside pact that still say eval.Value working until they say
// value.Value: chain, chain/state, txexec, actors, transport,
// cmd/ledger-node, cmd/pact, internal and bench. New code imports value.

type (
	Bool               = value.Bool
	CapToken           = value.CapToken
	Decimal            = value.Decimal
	Error              = value.Error
	Field              = value.Field
	FullyQualifiedName = value.FullyQualifiedName
	Integer            = value.Integer
	KeySet             = value.KeySet
	List               = value.List
	ModuleName         = value.ModuleName
	Object             = value.Object
	Signer             = value.Signer
	String             = value.String
	Value              = value.Value
)

const (
	ErrEval       = value.ErrEval
	ErrGas        = value.ErrGas
	Keys2         = value.Keys2
	KeysAll       = value.KeysAll
	KeysAny       = value.KeysAny
	MaxPlaces     = value.MaxPlaces
	RoundHalfEven = value.RoundHalfEven
)

var (
	Add            = value.Add
	DecimalFromInt = value.DecimalFromInt
	DecodeJSON     = value.DecodeJSON
	Equal          = value.Equal
	EvalError      = value.EvalError
	HashBytes      = value.HashBytes
	IntValue       = value.IntValue
	NewDecimal     = value.NewDecimal
	NewInt         = value.NewInt
	NewIntBig      = value.NewIntBig
	NewKeySet      = value.NewKeySet
	NewObject      = value.NewObject
	ParseDecimal   = value.ParseDecimal
	Pretty         = value.Pretty
	TimeFromMicros = value.TimeFromMicros
	EmptyObject    = value.EmptyObject
	UnitValue      = value.UnitValue
)
