package ledger

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"
)

// GraphEpoch is a chain graph together with the height from which it applies.
type GraphEpoch struct {
	Height uint64
	Graph  *Graph
}

// ForkHeights are the header-relevant fork heights of a version. A guard is active for heights
// strictly below its fork height, so 0 means "never active".
type ForkHeights struct {
	SlowEpoch                 uint64 // emergency DA possible below this parent height
	OldTargetGuard            uint64 // legacy epoch start and legacy DA time below this height
	SkipFeatureFlagValidation uint64 // feature flags unchecked below this height
	OldDAGuard                uint64 // legacy difficulty adjustment below this height
}

// Version is a network: its code, graphs, genesis and consensus parameters. Versions are plain
// values; the node may derive a development version with its own block delay and genesis.
type Version struct {
	Name        string
	Code        uint32
	BlockDelay  int64  // microseconds between blocks on each chain
	WindowWidth uint64 // blocks per difficulty epoch
	GenesisTime int64  // microseconds since the Unix epoch
	// Graphs lists the chain graphs, newest first (descending Height). The last one starts at 0.
	Graphs []GraphEpoch
	Forks  ForkHeights
	// DisablePow skips the PoW check (chainweb's --disable-pow: development only, off by default).
	DisablePow bool
	// FakeFirstEpochStart makes the block at height 2 take its parent's time as epoch start.
	FakeFirstEpochStart bool
	// LatestBehaviorHeight is reported by /info: one past the highest fork or graph height.
	LatestBehaviorHeight uint64

	genesisTargets       map[ChainID]U256
	genesisPayloadHashes map[ChainID]Hash // upstream genesis payloads, where known
}

// GraphAt returns the chain graph in force at height h: the entry with the largest start
// height <= h.
func (v *Version) GraphAt(h uint64) *Graph {
	for _, e := range v.Graphs {
		if e.Height <= h {
			return e.Graph
		}
	}
	return v.Graphs[len(v.Graphs)-1].Graph
}

// LatestGraph is the newest graph of the version.
func (v *Version) LatestGraph() *Graph { return v.Graphs[0].Graph }

// GenesisHeight returns the height of chain c's genesis block, and false if c never exists.
func (v *Version) GenesisHeight(c ChainID) (uint64, bool) {
	for i := len(v.Graphs) - 1; i >= 0; i-- {
		if v.Graphs[i].Graph.Has(c) {
			return v.Graphs[i].Height, true
		}
	}
	return 0, false
}

// HasChain reports whether chain c exists in any graph of the version.
func (v *Version) HasChain(c ChainID) bool {
	_, ok := v.GenesisHeight(c)
	return ok
}

// Chains returns every chain of the version, ascending.
func (v *Version) Chains() []ChainID { return v.LatestGraph().Chains() }

// HeaderGraph returns the graph a header at height h on chain c is checked against: its own
// height for a genesis header, its parent's height otherwise.
func (v *Version) HeaderGraph(c ChainID, h uint64) *Graph {
	if g, ok := v.GenesisHeight(c); ok && g == h {
		return v.GraphAt(h)
	}
	if h == 0 {
		return v.GraphAt(0)
	}
	return v.GraphAt(h - 1)
}

// IsGenesisHeight reports whether h is the genesis height of chain c.
func (v *Version) IsGenesisHeight(c ChainID, h uint64) bool {
	g, ok := v.GenesisHeight(c)
	return ok && g == h
}

// GenesisTarget returns the target of chain c's genesis block.
func (v *Version) GenesisTarget(c ChainID) U256 { return v.genesisTargets[c] }

// UpstreamGenesisPayloadHash returns the payload hash of the upstream genesis payload of chain
// c, when the version has one recorded.
func (v *Version) UpstreamGenesisPayloadHash(c ChainID) (Hash, bool) {
	h, ok := v.genesisPayloadHashes[c]
	return h, ok
}

// WithGenesisTarget returns a copy of v whose genesis target is t on every chain.
func (v *Version) WithGenesisTarget(t U256) *Version {
	c := *v
	c.genesisTargets = make(map[ChainID]U256, len(v.genesisTargets))
	for id := range v.genesisTargets {
		c.genesisTargets[id] = t
	}
	return &c
}

// WithBlockDelay returns a copy of v with another block delay.
func (v *Version) WithBlockDelay(microseconds int64) *Version {
	c := *v
	c.BlockDelay = microseconds
	return &c
}

// WithoutPow returns a copy of v whose blocks need no proof of work (chainweb's --disable-pow).
func (v *Version) WithoutPow() *Version {
	c := *v
	c.DisablePow = true
	return &c
}

func (v *Version) String() string { return v.Name }

// The networks the node knows. Parameters: shared/spec/chainweb-header.md §1, §3, §4.7, §5 and
// testdata/vectors/version-params.json.
var (
	Mainnet01        *Version
	Testnet04        *Version
	Development      *Version
	RecapDevelopment *Version
	TestSingleton    *Version
)

var versionsByName = map[string]*Version{}
var versionsByCode = map[uint32]*Version{}

// VersionByName looks a version up by its network name (as in URLs and header JSON).
func VersionByName(name string) (*Version, bool) { v, ok := versionsByName[name]; return v, ok }

// VersionByCode looks a version up by its binary code.
func VersionByCode(code uint32) (*Version, bool) { v, ok := versionsByCode[code]; return v, ok }

// VersionNames returns the known network names, sorted.
func VersionNames() []string {
	names := make([]string, 0, len(versionsByName))
	for n := range versionsByName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func mustBEHex(s string) U256 {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		panic(fmt.Sprintf("bad target constant %q", s))
	}
	u, _ := U256FromBig(new(big.Int).SetBytes(b))
	return u
}

func mustHash(s string) Hash {
	h, err := ParseHash(s)
	if err != nil {
		panic(err)
	}
	return h
}

func perChain(lo, hi ChainID, f func(ChainID) U256) map[ChainID]U256 {
	m := map[ChainID]U256{}
	for c := lo; c <= hi; c++ {
		m[c] = f(c)
	}
	return m
}

func register(v *Version) *Version {
	versionsByName[v.Name] = v
	versionsByCode[v.Code] = v
	return v
}

const (
	blockDelay30s     = 30_000_000
	testnetGenesisUs  = 1563388117613832 // 2019-07-17T18:28:37.613832Z
	mainnetGenesisUs  = 1572393660000000 // 2019-10-30T00:01:00Z
	epochWindowBlocks = 120
)

func init() {
	easy := new(big.Int).Div(MaxU256.Big(), big.NewInt(100_000))
	easyTarget, _ := U256FromBig(easy)
	split := func(lo, hi U256) map[ChainID]U256 {
		return perChain(0, 19, func(c ChainID) U256 {
			if c < 10 {
				return lo
			}
			return hi
		})
	}

	Mainnet01 = register(&Version{
		Name: "mainnet01", Code: 0x05, BlockDelay: blockDelay30s, WindowWidth: epochWindowBlocks,
		GenesisTime: mainnetGenesisUs,
		Graphs:      []GraphEpoch{{852054, TwentyChainGraph}, {0, PetersenGraph}},
		Forks: ForkHeights{SlowEpoch: 80000, OldTargetGuard: 452820,
			SkipFeatureFlagValidation: 530500, OldDAGuard: 771414},
		LatestBehaviorHeight: 6269345, // Chainweb231Pact fork + 1
		genesisTargets: split(MaxU256,
			mustBEHex("000000000000cb73de4be95ba21db5b9178dd85974c194e3ee05717dd8afa830")),
		genesisPayloadHashes: map[ChainID]Hash{
			0: mustHash("k1H3DsInAPvJ0W_zPxnrpkeSNdPUT0S9U8bqDLG739o"),
			1: mustHash("kClp_Tw7keCLXMfaCyjH-gToAGmLvRQqiNRmhWUCbxs"),
			2: mustHash("4DVp1dkSLYkFD0zbFF7e5Ba0ezKmnZhEVzlc5ZqqAT0"),
			3: mustHash("fCHKOS9SF9G3Gy5iGZnOmQxjGYf32yM8PklrcBD_dmQ"),
			4: mustHash("cTZ_29TkjXDlG_GlW8iB-va3mofpt_UjthLcOoqtlaQ"),
			5: mustHash("MS_wu92H4GVPCziB6g8rOAc3x2uyegXH4Yl_0TfpI7U"),
			6: mustHash("DVs3k9omI_WHMOJ8tUZ1Bt9Q1DdNmqC3V51iZDGmWwM"),
			7: mustHash("Faa4TQZGFkFumLfHnMIJBAu_PSmGY4F-YraLVFrxr7Y"),
			8: mustHash("YWgbJ4K5VET4WnG3H0Y0HPgzZ_qSnTgqxyB1kpMLJTQ"),
			9: mustHash("w_6Spsw-jdCi9hBTlM6v0C1P7XoglU_AqNG9rcOwAZ0"),
		},
	})
	for c := ChainID(10); c < 20; c++ {
		Mainnet01.genesisPayloadHashes[c] = mustHash("i-MN4AoxsaPds4M_MzwNSUygAkGnPZoCDvahfckowt4")
	}

	Testnet04 = register(&Version{
		Name: "testnet04", Code: 0x07, BlockDelay: blockDelay30s, WindowWidth: epochWindowBlocks,
		GenesisTime: testnetGenesisUs,
		Graphs:      []GraphEpoch{{332604, TwentyChainGraph}, {0, PetersenGraph}},
		Forks:       ForkHeights{SlowEpoch: 0, OldTargetGuard: 0, SkipFeatureFlagValidation: 0, OldDAGuard: 318204},
		// Only header-relevant heights are known here; the graph change is the highest of them.
		LatestBehaviorHeight: 332604 + 1,
		genesisTargets: split(MaxU256,
			mustBEHex("000000001b9bf15be43824bae4c4f17722572883f7b53ed2e8c6ba9596249235")),
		genesisPayloadHashes: upstreamPayloads("nfYm3e_fk2ICws0Uowos6OMuqfFg5Nrl_zqXVx9v_ZQ",
			"HU-ZhdfsQCiTrfxjtbkr5MHmjoukOt6INqB2vuYiF3g", "HU-ZhdfsQCiTrfxjtbkr5MHmjoukOt6INqB2vuYiF3g"),
	})

	RecapDevelopment = register(&Version{
		Name: "recap-development", Code: 0x01, BlockDelay: blockDelay30s, WindowWidth: epochWindowBlocks,
		GenesisTime:          testnetGenesisUs,
		Graphs:               []GraphEpoch{{60, TwentyChainGraph}, {0, PetersenGraph}},
		Forks:                ForkHeights{OldDAGuard: 13},
		FakeFirstEpochStart:  true,
		LatestBehaviorHeight: 60 + 1,
		genesisTargets: split(easyTarget,
			mustBEHex("0000088f99632cadf39b0db7655be62cb7dbc84ebbd9a90e5b5756d3e7d9196c")),
		genesisPayloadHashes: upstreamPayloads("5TWTF5R6Vc85vWHqcklTY91ljkV6mJ1wYfDJShooTCw",
			"yZ6Syxl34TTrGGKxVHInV0S29BH8v-C8VZTbJr2eK2k", "OXFBWONFKY7fTY4MH3GaOOELd_cPCMn9GpIOPBYMsvM"),
	})

	// Upstream's development network disables PoW; ours mines with real PoW (DECISIONS.md). The
	// flag stays false here: the node decides its own genesis target and payloads.
	Development = register(&Version{
		Name: "development", Code: 0x02, BlockDelay: blockDelay30s, WindowWidth: epochWindowBlocks,
		GenesisTime:          testnetGenesisUs,
		Graphs:               []GraphEpoch{{0, TwentyChainGraph}},
		FakeFirstEpochStart:  true,
		LatestBehaviorHeight: 1,
		genesisTargets:       perChain(0, 19, func(ChainID) U256 { return easyTarget }),
		genesisPayloadHashes: upstreamPayloads("GB8YsdVgd50IaJ_shYGN3pnzOohPi-gE3YaP2pvhw0w",
			"tL8Um8Zql3uKtYX5yo9-YoW_cKGf_BFBONzVD5JDd5k", "tL8Um8Zql3uKtYX5yo9-YoW_cKGf_BFBONzVD5JDd5k"),
	})

	// test-singleton: one chain, for tests. Its code follows the historic test-version scheme
	// (0x80000000 | singleton graph code 1 << 16); upstream's current test codes are unstable.
	TestSingleton = register(&Version{
		Name: "test-singleton", Code: 0x80010000, BlockDelay: blockDelay30s, WindowWidth: epochWindowBlocks,
		GenesisTime:          testnetGenesisUs,
		Graphs:               []GraphEpoch{{0, SingletonGraph}},
		FakeFirstEpochStart:  true,
		LatestBehaviorHeight: 1,
		genesisTargets:       map[ChainID]U256{0: easyTarget},
	})
}

// upstreamPayloads maps chain 0, chains 1..9 and chains 10..19 to three payload hashes.
func upstreamPayloads(c0, c1to9, c10to19 string) map[ChainID]Hash {
	m := map[ChainID]Hash{0: mustHash(c0)}
	for c := ChainID(1); c < 20; c++ {
		if c < 10 {
			m[c] = mustHash(c1to9)
		} else {
			m[c] = mustHash(c10to19)
		}
	}
	return m
}
