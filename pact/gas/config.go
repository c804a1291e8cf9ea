package gas

// Config holds the tunable constants of a gas model, in milligas
// (upstream's GasCostConfig). Some formulas also carry constants of their
// own (the 30 of an integer addition, the 40 per string of concat), which
// no configuration changes; those live beside the formulas.
type Config struct {
	NativeBasicWork          uint64 // the base cost of most natives, and of comparisons
	FunctionArgumentCost     uint64 // per argument of a closure application
	MachineTickCost          uint64 // per element or field of a runtime type check
	UnconsWork               uint64 // per element of map, filter, fold and zip; try; enforce-one
	ReadPenalty              uint64 // flat part of a row read
	WritePenalty             uint64 // flat part of a row write
	MetadataTxPenalty        uint64 // describe-*, list-modules
	SelectPenalty            uint64 // select, keys, fold-db
	ConcatFactor             uint64 // per character, element or field concatenated or constructed
	PerByteWriteCost         uint64 // per estimated byte written
	PerByteReadCost          uint64 // per estimated byte read
	SortBytePenaltyReduction uint64 // divisor of the sort formula
	PoseidonQuadraticFactor  uint64
	PoseidonLinearFactor     uint64
	ModuleLoadSlope          uint64 // a module read costs encodedBytes/slope + intercept
	ModuleLoadIntercept      uint64
	DesugarBytePenalty       uint64 // per estimated byte of a module being desugared
	HashBytePenalty          uint64 // per estimated byte hashed with BLAKE2b
	SizeOfBytePenalty        uint64 // bounds the byte-size estimator (see SizeBudget)
	Keccak256Per100Bytes     uint64
	Keccak256PerChunk        uint64
}

// TableConfig is the table model's configuration, the one chainweb charges
// with.
var TableConfig = Config{
	NativeBasicWork:          100,
	FunctionArgumentCost:     25,
	MachineTickCost:          25,
	UnconsWork:               100,
	ReadPenalty:              2_500,
	WritePenalty:             25_000,
	MetadataTxPenalty:        100_000,
	SelectPenalty:            40_000_000,
	ConcatFactor:             100,
	PerByteWriteCost:         200,
	PerByteReadCost:          100,
	SortBytePenaltyReduction: 1_000,
	PoseidonQuadraticFactor:  50_000,
	PoseidonLinearFactor:     38_000,
	ModuleLoadSlope:          200,
	ModuleLoadIntercept:      10,
	DesugarBytePenalty:       400,
	HashBytePenalty:          100,
	SizeOfBytePenalty:        5,
	Keccak256Per100Bytes:     146,
	Keccak256PerChunk:        2_120,
}

// FreeConfig is the free model's configuration: every constant 1. It only
// matters when the free model is given a limit (env-gaslimit without
// env-gasmodel in the REPL), where upstream charges with these ones.
var FreeConfig = Config{
	NativeBasicWork: 1, FunctionArgumentCost: 1, MachineTickCost: 1, UnconsWork: 1, ReadPenalty: 1,
	WritePenalty: 1, MetadataTxPenalty: 1, SelectPenalty: 1, ConcatFactor: 1, PerByteWriteCost: 1,
	PerByteReadCost: 1, SortBytePenaltyReduction: 1, PoseidonQuadraticFactor: 1, PoseidonLinearFactor: 1,
	ModuleLoadSlope: 1, ModuleLoadIntercept: 1, DesugarBytePenalty: 1, HashBytePenalty: 1,
	SizeOfBytePenalty: 1, Keccak256Per100Bytes: 1, Keccak256PerChunk: 1,
}

// Model is a gas model: a configuration and a price list for natives.
type Model struct {
	// Name and Desc are what env-gasmodel reports.
	Name, Desc string
	Config     *Config
	// Natives prices natives by their flat table cost; when false every
	// native's flat cost is 0 (the free model).
	Natives bool
	// Rate, when non-zero, replaces every charge by this flat amount: the
	// constant-rate model of `pact -s` with a gasRate (per metered
	// operation), which the interface document specifies for the server.
	Rate MilliGas
}

// Table is Pact 5's table model.
var Table = &Model{Name: "table", Desc: "table-based cost model", Config: &TableConfig, Natives: true}

// Free is Pact 5's free model: with no limit it charges nothing at all.
var Free = &Model{Name: "freeGasModel", Desc: "free gas model", Config: &FreeConfig}

// ConstantRate is the model of `pact -s` with gasRate r gas per operation.
func ConstantRate(r uint64) *Model {
	return &Model{Name: "fixed", Desc: "constant rate gas model", Config: &TableConfig, Natives: true, Rate: FromGas(r)}
}
