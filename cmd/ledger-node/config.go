package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/chain"
	"github.com/ledgernode/ledger-node/internal/yamlerr"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/pact/server"
	"github.com/ledgernode/ledger-node/store/backup"
	"github.com/ledgernode/ledger-node/txexec"
)

// Config is the node's whole configuration. Every field has a YAML key and a command-line flag
// (see options); precedence is defaults < each --config-file in order < flags. A config file may
// also hold chainweb-node's sections (chainweb:, logging:, databaseDirectory), which
// chainweb.go maps onto these fields.
type Config struct {
	Network  string `yaml:"network"`
	DataDir  string `yaml:"dataDir"`
	LogLevel string `yaml:"logLevel"`
	// LogFormat is text (slog's key=value lines) or json (one object a line, logs.go).
	LogFormat string `yaml:"logFormat"`
	// LogHandle is where the log goes: stderr, stdout or file:PATH (overwritten at start, as
	// chainweb-node does).
	LogHandle string `yaml:"logHandle"`
	// ClusterID, when set, labels every log line (cluster=ID), as chainweb's logging.clusterId.
	ClusterID string `yaml:"clusterId"`
	// ResetChainDatabases deletes the data directory at start, as chainweb-node's key of the
	// same name does: a fresh node on the same settings.
	ResetChainDatabases bool `yaml:"resetChainDatabases"`
	// OnlySyncPact brings the Pact state up to the stored cut and exits without serving, as
	// chainweb-node's onlySyncPact (--only-sync-pact) does.
	OnlySyncPact bool             `yaml:"onlySyncPact"`
	ServiceAPI   ServiceAPIConfig `yaml:"serviceApi"`
	Store        StoreConfig      `yaml:"store"`
	// NodeServiceDate is reported by /info as nodeServiceDate (ISO 8601); empty means null.
	NodeServiceDate string       `yaml:"nodeServiceDate"`
	Mining          MiningConfig `yaml:"mining"`
	// Runtime tunes the Go runtime's garbage collector (runtime.go).
	Runtime   RuntimeConfig `yaml:"runtime"`
	Private   PrivateConfig `yaml:"private"`
	Backup    BackupConfig  `yaml:"backup"`
	P2P       P2PConfig     `yaml:"p2p"`
	Execution ExecConfig    `yaml:"execution"`

	// chainwebOrigin: a chainweb-node file or flag configured the node (loadConfigWarn), whose
	// APIs then bind every interface by default, as chainweb-node's (bindDefaults).
	chainwebOrigin bool
}

// RuntimeConfig tunes the garbage collector. The GOGC and GOMEMLIMIT environment variables,
// when set, win over both (Go's own way to tune a program).
type RuntimeConfig struct {
	// GCPercent is Go's GOGC: how far the heap grows past the live data before a collection.
	GCPercent int `yaml:"gcPercent"`
	// MemoryLimitMiB is Go's soft memory limit (GOMEMLIMIT) in MiB: near it the collector runs
	// as often as it must. 0 means half the machine's memory, at most 2 GiB.
	MemoryLimitMiB int `yaml:"memoryLimitMiB"`
}

// ExecConfig bounds Pact execution (DECISIONS.md, "resource bounds"). Gas itself is charged as
// chainweb-node 2.32 charges with Pact 5 (txexec); these are the node's limits around it.
type ExecConfig struct {
	// BlockGasLimit is the most gas a command may ask for and the blocks this node builds may
	// spend (chainweb's gasLimitOfBlock), at most chain.MaxBlockGasLimit.
	BlockGasLimit uint64 `yaml:"blockGasLimit"`
	// LocalGasLimit caps the gas limit of /local whatever the command asks; 0 at start means
	// BlockGasLimit.
	LocalGasLimit uint64 `yaml:"localGasLimit"`
	// LocalTimeLimit bounds a /local command's time; 0 at start means chainweb's bound for a
	// transaction of a block of LocalGasLimit gas (txexec.TxTimeLimit: 1.875 s at 150,000).
	LocalTimeLimit time.Duration `yaml:"localTimeLimit"`
	// MaxResultBytes caps a command's result; MaxBlockOutputBytes a block's outputs. Both are
	// validity rules of blocks: every node of a network must use the same values.
	MaxResultBytes      int `yaml:"maxResultBytes"`
	MaxBlockOutputBytes int `yaml:"maxBlockOutputBytes"`
	// EvalSlots is how many /local evaluations (and private commands) run at once; 0 at start
	// means half the cores. A request waits at most EvalWait for one, then gets a 503.
	EvalSlots int           `yaml:"evalSlots"`
	EvalWait  time.Duration `yaml:"evalWait"`
	// AllowReadsInLocal lets /local read any table directly (chainweb's allowReadsInLocal;
	// off by default, as upstream, and never in blocks).
	AllowReadsInLocal bool `yaml:"allowReadsInLocal"`
}

// P2PConfig configures the peer API and peer sync (chainweb-api.md §1.1, the P2P column).
type P2PConfig struct {
	// Interface is where the peer API listens; empty: 0.0.0.0, or 127.0.0.1 on the
	// development network configured by our own keys alone (Config.bindDefaults).
	Interface string `yaml:"interface"`
	// Port of the peer API; 0 picks a free port.
	Port int `yaml:"port"`
	// Hostname is the host this node announces to its peers as its peer API's (chainweb's
	// p2p.peer.hostaddress.hostname, --p2p-hostname), and its certificate's common name;
	// empty: the interface's address, or, on 0.0.0.0, this machine's address towards its
	// first peer (peerHost).
	Hostname string `yaml:"hostname"`
	// CertificateChain (PEM) or CertificateChainFile, with Key (PEM) or KeyFile, is the peer
	// API's certificate (chainweb's p2p.peer.certificateChain, …File, key, keyFile); the
	// inline value wins over the file, as upstream. Without one, the node makes a
	// self-signed certificate at its first start and keeps it in <dataDir>/peer.
	CertificateChain     string `yaml:"certificateChain"`
	CertificateChainFile string `yaml:"certificateChainFile"`
	Key                  string `yaml:"key"`
	KeyFile              string `yaml:"keyFile"`
	// Peers are peer infos [ID@]HOST:PORT to start from (ID: the fingerprint of the peer's
	// certificate, which it must then present); more are learned from their peer lists.
	Peers []string `yaml:"peers"`
	// Throttling is the peer API's request rates per client address (YAML only, as
	// chainweb-node's throttling).
	Throttling ThrottlingConfig `yaml:"throttling"`
	// AllowPrivatePeers admits loopback and private addresses offered as peers also when this
	// node's peer API is on a public or unspecified address (transport.AddressPolicy).
	AllowPrivatePeers bool `yaml:"allowPrivatePeers"`
	// MaxConnections and MaxConnectionsPerAddress are ServiceAPIConfig's for the peer API.
	MaxConnections           int `yaml:"maxConnections"`
	MaxConnectionsPerAddress int `yaml:"maxConnectionsPerAddress"`
}

// ThrottlingConfig is chainweb-node's throttling: requests per second a client address may
// make of the peer API, in all, of PUT …/cut/peer, and of the mempool endpoints.
type ThrottlingConfig struct {
	Global  float64 `yaml:"global"`
	PutPeer float64 `yaml:"putPeer"`
	Mempool float64 `yaml:"mempool"`
	// Loopback limits loopback clients too (ours; off by default: they are this machine's
	// processes, the other nodes of a network on one machine among them). A node behind a
	// reverse proxy on its own machine sees every client as loopback and should turn it on.
	Loopback bool `yaml:"loopback"`
}

// BackupConfig configures database backups (interface.md "Backup endpoints"): the backup API
// and the directory backups go to, one subdirectory per backup id.
type BackupConfig struct {
	API BackupAPIConfig `yaml:"api"`
	// Directory is where backups go; created at start if missing, and it must be writable.
	Directory string `yaml:"directory"`
	// Keep is how many backups the directory keeps (ours): when a backup ends, the oldest
	// beyond it are deleted, so that requests cannot fill the disk with copies.
	Keep int `yaml:"keep"`
}

// BackupAPIConfig turns the backup endpoints on (off by default: a backup costs disk space and
// I/O, so an operator asks for it).
type BackupAPIConfig struct {
	Enabled bool `yaml:"enabled"`
}

// PrivateConfig configures private commands (DECISIONS.md, "private"): this node's entity and
// the other entities' nacl/box public keys and service API addresses. The entities map has no
// flag: it is YAML only.
type PrivateConfig struct {
	// Entity is this node's entity name ("entity" when empty).
	Entity string `yaml:"entity"`
	// EntitySecret is this entity's nacl/box secret key (64 hex digits); empty: the key in
	// <dataDir>/private/entity.key, made on first start.
	EntitySecret string `yaml:"entitySecret"`
	// Entities are the other entities by name.
	Entities map[string]EntityConfig `yaml:"entities"`
}

// EntityConfig is another entity: its box public key and its node's service API base URL.
type EntityConfig struct {
	PublicKey string `yaml:"publicKey"`
	URL       string `yaml:"url"`
}

// MiningConfig configures the built-in miner, the mining coordination API for external miners,
// and on-demand mining (chainweb-mining-and-config.md).
type MiningConfig struct {
	// Mode is "pow" (mine all chains continuously with proof of work), "on-demand" (mine only
	// the blocks asked for: make-blocks, sent transactions, start-up and idle blocks) or "off".
	// Empty picks the network's default: pow on development, off on the upstream networks,
	// which this node cannot mine.
	Mode string `yaml:"mode"`
	// BlockDelay is the development network's target time between blocks of a chain (30 s
	// when zero). The genesis difficulty and the difficulty adjustment follow it (pow/devnet.go).
	BlockDelay time.Duration `yaml:"blockDelay"`
	// Account and PublicKey (64 hex digits) say who mined a block, in its miner data.
	Account   string `yaml:"account"`
	PublicKey string `yaml:"publicKey"`
	// DisablePow accepts blocks without proof of work and mines them with nonce 0 (chainweb's
	// --disable-pow, which devnet sets; development network only). Peers must agree.
	DisablePow bool `yaml:"disablePow"`
	// Coordination is the mining API for external miners (chainweb's mining.coordination).
	Coordination CoordinationConfig `yaml:"coordination"`
	// OnDemand tunes mode on-demand.
	OnDemand OnDemandConfig `yaml:"onDemand"`
}

// CoordinationConfig configures the mining coordination API, GET …/mining/work, POST
// …/mining/solved and GET …/mining/updates on the service API. The keys and units are
// chainweb-node's (chainweb.mining.coordination).
type CoordinationConfig struct {
	// Enabled mounts the API; off by default, when /mining/* answers 404.
	Enabled bool `yaml:"enabled"`
	// Miners are the miners allowed to ask for work; a request's miner must equal one of them
	// (account, set of keys, predicate), else 403. --mining-public-key adds k:<key> miners.
	Miners []MinerID `yaml:"miners"`
	// Limit is how many pieces of work may be out (handed out in the last 5 minutes and not
	// solved) before /mining/work answers 503.
	Limit int `yaml:"limit"`
	// UpdateStreamLimit bounds the open /mining/updates streams (at most limit − 1, as upstream).
	UpdateStreamLimit int `yaml:"updateStreamLimit"`
	// UpdateStreamTimeout is an update stream's lifetime in seconds (±10% jitter).
	UpdateStreamTimeout int `yaml:"updateStreamTimeout"`
	// PayloadRefreshDelay is how often, in microseconds, work on an unchanged parent is rebuilt
	// with the newest pending transactions.
	PayloadRefreshDelay int64 `yaml:"payloadRefreshDelay"`
}

// MinerID is a miner as the mining API names it: the reward account and its keyset.
type MinerID struct {
	Account    string   `yaml:"account"`
	PublicKeys []string `yaml:"public-keys"`
	Predicate  string   `yaml:"predicate"`
}

// OnDemandConfig tunes on-demand mining, which does what Kadena devnet's mining trigger and
// on-demand mining client did together.
type OnDemandConfig struct {
	// StartBlocks is how many blocks every chain gets at start-up.
	StartBlocks int `yaml:"startBlocks"`
	// ConfirmationDepth is how many blocks a chain gets after one of its transactions is
	// accepted by /send: the block that includes it and the confirmations after it.
	ConfirmationDepth int `yaml:"confirmationDepth"`
	// IdlePeriod: with no block mined for this long, one block on a random chain; 0 never.
	IdlePeriod time.Duration `yaml:"idlePeriod"`
	// Interface and Port: a second listener that serves only POST /make-blocks, where clients
	// of chainweb-mining-client's on-demand worker expect it (devnet: 1790). Port 0: none;
	// POST /make-blocks is on the service API either way.
	Interface string `yaml:"interface"`
	Port      int    `yaml:"port"`
}

// ServiceAPIConfig configures the public REST service.
type ServiceAPIConfig struct {
	Interface         string `yaml:"interface"`
	Port              int    `yaml:"port"`
	PayloadBatchLimit int    `yaml:"payloadBatchLimit"`
	// HeaderStream serves GET …/header/updates and …/block/updates (on by default;
	// DECISIONS.md).
	HeaderStream bool `yaml:"headerStream"`
	// Explorer serves the explorer page at / (on by default).
	Explorer bool `yaml:"explorer"`
	// MetricsPath is where the Prometheus metrics are served; empty turns them off (metrics.go).
	MetricsPath string `yaml:"metricsPath"`
	// MaxConnections and MaxConnectionsPerAddress bound the API's open connections, in all
	// and per client address (not loopback); 0 derives them from the descriptor limit
	// (limits.go).
	MaxConnections           int `yaml:"maxConnections"`
	MaxConnectionsPerAddress int `yaml:"maxConnectionsPerAddress"`
}

// StoreConfig sizes the database caches.
type StoreConfig struct {
	HeaderCacheSize int `yaml:"headerCacheSize"`
	BlockCacheMiB   int `yaml:"blockCacheMiB"`
}

// DefaultConfig is the configuration of `ledger-node` with no flags and no file.
func DefaultConfig() Config {
	return Config{
		Network:   "development",
		LogLevel:  "info",
		LogFormat: "text",
		LogHandle: "stderr",
		ServiceAPI: ServiceAPIConfig{
			Port: 1848, PayloadBatchLimit: 1000, HeaderStream: true, Explorer: true, MetricsPath: "/metrics",
		},
		Store:   StoreConfig{HeaderCacheSize: 65536, BlockCacheMiB: 64},
		Backup:  BackupConfig{Keep: backup.DefaultKeep},
		Runtime: RuntimeConfig{GCPercent: defaultGCPercent},
		Mining: MiningConfig{
			Coordination: CoordinationConfig{Limit: 1200, UpdateStreamLimit: 2000, UpdateStreamTimeout: 240,
				PayloadRefreshDelay: 15_000_000},
			OnDemand: OnDemandConfig{StartBlocks: 2, ConfirmationDepth: 5, IdlePeriod: 30 * time.Second,
				Interface: "127.0.0.1"},
		},
		P2P: P2PConfig{Port: 1789,
			Throttling: ThrottlingConfig{Global: 50, PutPeer: 11, Mempool: 20}},
		Execution: ExecConfig{
			BlockGasLimit:       mempool.DefaultBlockGasLimit,
			MaxResultBytes:      txexec.DefaultMaxResultBytes,
			MaxBlockOutputBytes: chain.DefaultMaxBlockOutputBytes,
			EvalWait:            actors.DefaultEvalWait,
		},
	}
}

// option ties a command-line flag to the YAML key of the same setting.
type option struct {
	flag, yamlKey, usage string
	bind                 func(fs *flag.FlagSet, c *Config, name, usage string)
}

func stringOpt(flagName, key, usage string, field func(*Config) *string) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.StringVar(field(c), n, *field(c), u)
	}}
}

func intOpt(flagName, key, usage string, field func(*Config) *int) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(field(c), n, *field(c), u)
	}}
}

func boolOpt(flagName, key, usage string, field func(*Config) *bool) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.BoolVar(field(c), n, *field(c), u)
	}}
}

// listOpt is a repeatable flag whose values append to a list (after the config file's).
func listOpt(flagName, key, usage string, field func(*Config) *[]string) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Func(n, u, func(v string) error {
			*field(c) = append(*field(c), v)
			return nil
		})
	}}
}

func int64Opt(flagName, key, usage string, field func(*Config) *int64) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Int64Var(field(c), n, *field(c), u)
	}}
}

// minerKeyOpt is chainweb's --mining-public-key: each value adds the miner k:<key> with that
// key and keys-all, after the config file's miners.
func minerKeyOpt(flagName, key, usage string, field func(*Config) *[]MinerID) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Func(n, u, func(v string) error {
			*field(c) = append(*field(c), MinerID{Account: "k:" + v, PublicKeys: []string{v}, Predicate: "keys-all"})
			return nil
		})
	}}
}

func uint64Opt(flagName, key, usage string, field func(*Config) *uint64) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Uint64Var(field(c), n, *field(c), u)
	}}
}

func durationOpt(flagName, key, usage string, field func(*Config) *time.Duration) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(field(c), n, *field(c), u)
	}}
}

// blockDelayOpt is a duration flag that also takes a bare number of microseconds, the unit of
// chainweb-node's --block-delay.
func blockDelayOpt(flagName, key, usage string, field func(*Config) *time.Duration) option {
	return option{flagName, key, usage, func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Func(n, u, func(v string) error {
			if us, err := strconv.ParseInt(v, 10, 64); err == nil {
				*field(c) = time.Duration(us) * time.Microsecond
				return nil
			}
			d, err := time.ParseDuration(v)
			*field(c) = d
			return err
		})
	}}
}

// options lists every setting. A test checks that each flag changes exactly its YAML key.
var options = []option{
	stringOpt("network", "network", "network to join: "+strings.Join(ledger.VersionNames(), ", "),
		func(c *Config) *string { return &c.Network }),
	stringOpt("data-dir", "dataDir", "database directory (default: $XDG_DATA_HOME/ledger-node/<network>)",
		func(c *Config) *string { return &c.DataDir }),
	stringOpt("log-level", "logLevel", "debug, info, warn, error or quiet",
		func(c *Config) *string { return &c.LogLevel }),
	stringOpt("log-format", "logFormat", "text or json (one JSON object a line)",
		func(c *Config) *string { return &c.LogFormat }),
	stringOpt("log-handle", "logHandle", "where the log goes: stderr, stdout or file:PATH (overwritten at start)",
		func(c *Config) *string { return &c.LogHandle }),
	stringOpt("cluster-id", "clusterId", "label added to every log line as cluster=ID",
		func(c *Config) *string { return &c.ClusterID }),
	boolOpt("enable-reset-chain-databases", "resetChainDatabases", "delete the data directory at start and begin afresh",
		func(c *Config) *bool { return &c.ResetChainDatabases }),
	boolOpt("only-sync-pact", "onlySyncPact", "bring the Pact state up to the stored cut, then exit without serving (chainweb-node's flag)",
		func(c *Config) *bool { return &c.OnlySyncPact }),
	stringOpt("service-interface", "serviceApi.interface", "address the service API listens on",
		func(c *Config) *string { return &c.ServiceAPI.Interface }),
	intOpt("service-port", "serviceApi.port", "port of the service API (0 picks a free port)",
		func(c *Config) *int { return &c.ServiceAPI.Port }),
	intOpt("service-payload-batch-limit", "serviceApi.payloadBatchLimit", "most payloads one batch request returns",
		func(c *Config) *int { return &c.ServiceAPI.PayloadBatchLimit }),
	intOpt("service-max-connections", "serviceApi.maxConnections", "most connections the service API keeps open (0: from the descriptor limit)",
		func(c *Config) *int { return &c.ServiceAPI.MaxConnections }),
	intOpt("service-max-connections-per-address", "serviceApi.maxConnectionsPerAddress",
		"most connections one client address may keep open to the service API, loopback excepted (0: a quarter of the limit, at most 256)",
		func(c *Config) *int { return &c.ServiceAPI.MaxConnectionsPerAddress }),
	intOpt("header-cache-size", "store.headerCacheSize", "decoded headers kept in memory",
		func(c *Config) *int { return &c.Store.HeaderCacheSize }),
	intOpt("gc-percent", "runtime.gcPercent", "the garbage collector's GOGC (the GOGC environment variable wins)",
		func(c *Config) *int { return &c.Runtime.GCPercent }),
	intOpt("memory-limit-mib", "runtime.memoryLimitMiB", "soft memory limit in MiB, 0: half the machine's memory, at most 2048 (GOMEMLIMIT wins)",
		func(c *Config) *int { return &c.Runtime.MemoryLimitMiB }),
	intOpt("block-cache-mib", "store.blockCacheMiB", "database block cache in MiB",
		func(c *Config) *int { return &c.Store.BlockCacheMiB }),
	stringOpt("node-service-date", "nodeServiceDate", "next service date reported by /info (ISO 8601; empty = null)",
		func(c *Config) *string { return &c.NodeServiceDate }),
	boolOpt("header-stream", "serviceApi.headerStream", "serve the header and block update streams (SSE)",
		func(c *Config) *bool { return &c.ServiceAPI.HeaderStream }),
	boolOpt("explorer", "serviceApi.explorer", "serve the explorer page at / (--explorer=false turns it off)",
		func(c *Config) *bool { return &c.ServiceAPI.Explorer }),
	stringOpt("metrics-path", "serviceApi.metricsPath", "path of the Prometheus metrics on the service API (empty: none)",
		func(c *Config) *string { return &c.ServiceAPI.MetricsPath }),
	stringOpt("mining", "mining.mode", "pow, on-demand or off (default: pow on development, off elsewhere)",
		func(c *Config) *string { return &c.Mining.Mode }),
	boolOpt("disable-pow", "mining.disablePow", "development network only: accept and mine blocks without proof of work (peers must agree)",
		func(c *Config) *bool { return &c.Mining.DisablePow }),
	boolOpt("enable-mining-coordination", "mining.coordination.enabled", "serve the mining API (/mining/work, /mining/solved, /mining/updates) to external miners",
		func(c *Config) *bool { return &c.Mining.Coordination.Enabled }),
	minerKeyOpt("mining-public-key", "mining.coordination.miners", "allow the miner k:<key> with this public key (64 hex digits) to ask for work (repeatable)",
		func(c *Config) *[]MinerID { return &c.Mining.Coordination.Miners }),
	intOpt("mining-request-limit", "mining.coordination.limit", "pieces of work out at once before /mining/work answers 503",
		func(c *Config) *int { return &c.Mining.Coordination.Limit }),
	intOpt("mining-update-stream-limit", "mining.coordination.updateStreamLimit", "open /mining/updates streams at once (at most this − 1)",
		func(c *Config) *int { return &c.Mining.Coordination.UpdateStreamLimit }),
	intOpt("mining-update-stream-timeout", "mining.coordination.updateStreamTimeout", "lifetime of a /mining/updates stream in seconds",
		func(c *Config) *int { return &c.Mining.Coordination.UpdateStreamTimeout }),
	int64Opt("mining-payload-refresh-delay", "mining.coordination.payloadRefreshDelay", "microseconds between refreshes of work with new transactions",
		func(c *Config) *int64 { return &c.Mining.Coordination.PayloadRefreshDelay }),
	intOpt("on-demand-start-blocks", "mining.onDemand.startBlocks", "mining on-demand: blocks every chain gets at start-up",
		func(c *Config) *int { return &c.Mining.OnDemand.StartBlocks }),
	intOpt("on-demand-confirmation-depth", "mining.onDemand.confirmationDepth", "mining on-demand: blocks a chain gets after /send accepted a transaction on it",
		func(c *Config) *int { return &c.Mining.OnDemand.ConfirmationDepth }),
	durationOpt("on-demand-idle-period", "mining.onDemand.idlePeriod", "mining on-demand: mine one block on a random chain after this long without one (0: never)",
		func(c *Config) *time.Duration { return &c.Mining.OnDemand.IdlePeriod }),
	stringOpt("on-demand-interface", "mining.onDemand.interface", "mining on-demand: interface of the separate make-blocks listener",
		func(c *Config) *string { return &c.Mining.OnDemand.Interface }),
	intOpt("on-demand-port", "mining.onDemand.port", "mining on-demand: port of a separate listener for POST /make-blocks (0: none; the service API serves it anyway)",
		func(c *Config) *int { return &c.Mining.OnDemand.Port }),
	blockDelayOpt("block-delay", "mining.blockDelay", "development network only: target time between blocks of a chain, e.g. 2s, or microseconds as chainweb-node's flag (default 30s)",
		func(c *Config) *time.Duration { return &c.Mining.BlockDelay }),
	stringOpt("miner-account", "mining.account", "account named in the miner data of mined blocks (default k:<miner key>)",
		func(c *Config) *string { return &c.Mining.Account }),
	stringOpt("miner-key", "mining.publicKey", "public key (64 hex digits) in the miner data of mined blocks",
		func(c *Config) *string { return &c.Mining.PublicKey }),
	stringOpt("entity", "private.entity", "this node's entity name for private commands (default entity)",
		func(c *Config) *string { return &c.Private.Entity }),
	stringOpt("entity-secret", "private.entitySecret", "this entity's nacl/box secret key, 64 hex digits (default: <data-dir>/private/entity.key)",
		func(c *Config) *string { return &c.Private.EntitySecret }),
	stringOpt("p2p-interface", "p2p.interface", "interface the peer API binds",
		func(c *Config) *string { return &c.P2P.Interface }),
	intOpt("p2p-port", "p2p.port", "port of the peer API (0 picks a free port)",
		func(c *Config) *int { return &c.P2P.Port }),
	boolOpt("p2p-allow-private-peers", "p2p.allowPrivatePeers",
		"take loopback and private addresses offered as peers also when the peer API is on a public or unspecified address",
		func(c *Config) *bool { return &c.P2P.AllowPrivatePeers }),
	intOpt("p2p-max-connections", "p2p.maxConnections", "most connections the peer API keeps open (0: from the descriptor limit)",
		func(c *Config) *int { return &c.P2P.MaxConnections }),
	intOpt("p2p-max-connections-per-address", "p2p.maxConnectionsPerAddress",
		"most connections one client address may keep open to the peer API, loopback excepted (0: a quarter of the limit, at most 256)",
		func(c *Config) *int { return &c.P2P.MaxConnectionsPerAddress }),
	listOpt("peer", "p2p.peers", "a peer to sync with, [ID@]HOST:PORT: its peer API's address, and the fingerprint of its certificate, which it must then present (repeatable)",
		func(c *Config) *[]string { return &c.P2P.Peers }),
	stringOpt("p2p-hostname", "p2p.hostname", "host name or address this node announces to its peers as its peer API's (chainweb-node's flag)",
		func(c *Config) *string { return &c.P2P.Hostname }),
	stringOpt("p2p-certificate-chain", "p2p.certificateChain", "the peer API's certificate chain, PEM (chainweb-node's flag; needs a key)",
		func(c *Config) *string { return &c.P2P.CertificateChain }),
	stringOpt("p2p-certificate-chain-file", "p2p.certificateChainFile", "file of the peer API's certificate chain, PEM (chainweb-node's flag)",
		func(c *Config) *string { return &c.P2P.CertificateChainFile }),
	stringOpt("p2p-key", "p2p.key", "the key of the peer API's certificate, PEM (chainweb-node's flag)",
		func(c *Config) *string { return &c.P2P.Key }),
	stringOpt("p2p-certificate-key-file", "p2p.keyFile", "file of the key of the peer API's certificate, PEM (chainweb-node's flag)",
		func(c *Config) *string { return &c.P2P.KeyFile }),
	boolOpt("enable-backup-api", "backup.api.enabled", "serve POST make-backup and GET check-backup/{id} (needs --backup-directory)",
		func(c *Config) *bool { return &c.Backup.API.Enabled }),
	stringOpt("backup-directory", "backup.directory", "where backups go, one directory per backup id (created if missing)",
		func(c *Config) *string { return &c.Backup.Directory }),
	intOpt("backup-keep", "backup.keep", "backups the backup directory keeps; the oldest beyond are deleted when a backup ends",
		func(c *Config) *int { return &c.Backup.Keep }),
	uint64Opt("block-gas-limit", "execution.blockGasLimit",
		"most gas a command may ask for and a block this node builds may spend (at most 180000)",
		func(c *Config) *uint64 { return &c.Execution.BlockGasLimit }),
	uint64Opt("local-gas-limit", "execution.localGasLimit", "cap of a /local command's gas limit (default: the block gas limit)",
		func(c *Config) *uint64 { return &c.Execution.LocalGasLimit }),
	intOpt("max-result-bytes", "execution.maxResultBytes", "largest result of a command in bytes; a larger one fails the command (same on every node)",
		func(c *Config) *int { return &c.Execution.MaxResultBytes }),
	intOpt("max-block-output-bytes", "execution.maxBlockOutputBytes", "largest outputs of a block in bytes (same on every node)",
		func(c *Config) *int { return &c.Execution.MaxBlockOutputBytes }),
	intOpt("eval-slots", "execution.evalSlots", "/local evaluations run at once (default: half the cores)",
		func(c *Config) *int { return &c.Execution.EvalSlots }),
	boolOpt("allowReadsInLocal", "execution.allowReadsInLocal", "let /local read any table directly (chainweb-node's flag; --no-allowReadsInLocal too)",
		func(c *Config) *bool { return &c.Execution.AllowReadsInLocal }),
	durationOpt("eval-wait", "execution.evalWait", "how long a /local waits for an evaluation slot before a 503",
		func(c *Config) *time.Duration { return &c.Execution.EvalWait }),
	durationOpt("local-time-limit", "execution.localTimeLimit", "how long a /local command may run before a 400 (default: 12.5 µs a gas of --local-gas-limit, chainweb's bound on a transaction of a block being built)",
		func(c *Config) *time.Duration { return &c.Execution.LocalTimeLimit }),
}

// errHelp is returned when the user asked for usage; it is not a failure.
var errHelp = errors.New("help requested")

// errVersion is returned when --version is among the flags: print the version and stop.
var errVersion = errors.New("version requested")

// errInfo, errLongInfo and errLicense are returned for configuration-tools' --info (-i),
// --long-info and --license, which chainweb-node has: print and stop.
var (
	errInfo     = errors.New("info requested")
	errLongInfo = errors.New("long info requested")
	errLicense  = errors.New("license requested")
)

// loadConfig builds the configuration from args: defaults, then each --config-file in the
// order given, then flags. Warnings (chainweb-node settings with no meaning here) go to stderr.
// printAs is the --print-config-as mode ("" when the node is to run).
func loadConfig(args []string, stderr io.Writer) (cfg Config, printAs string, err error) {
	cfg, printAs, _, err = loadConfigArgs(args, stderr, false)
	return cfg, printAs, err
}

// loadConfigArgs is loadConfig for commands that take positional arguments after the flags.
func loadConfigArgs(args []string, stderr io.Writer, positional bool) (cfg Config, printAs string, rest []string, err error) {
	return loadConfigWarn(args, stderr, positional, func(msg string) {
		fmt.Fprintf(stderr, "ledger-node: warning: %s\n", msg)
	})
}

// loadConfigWarn is loadConfigArgs with the warnings given to warn, each once: a node that runs
// logs them (main.go).
func loadConfigWarn(args []string, stderr io.Writer, positional bool, warnTo func(string)) (cfg Config, printAs string, rest []string, err error) {
	warned := map[string]bool{}
	warn := func(msg string) {
		if !warned[msg] {
			warned[msg] = true
			warnTo(msg)
		}
	}
	args = stripRTS(args)
	cfg = DefaultConfig()
	files, err := findConfigFiles(args)
	if err != nil {
		return cfg, "", nil, err
	}
	var origin configOrigin
	for _, file := range files {
		if err := readConfigFile(file, &cfg, warn, &origin); err != nil {
			return cfg, "", nil, err
		}
	}
	fs := newFlagSet(&cfg, stderr, warn)
	fs.Func("config-file", "YAML configuration file, ours or chainweb-node's, or an http:// or https:// URL of one (repeatable: later files and then flags override earlier ones; lists add up)",
		func(string) error { return nil }) // read above, before the flags apply
	var printConfig, version, info, longInfo, license bool
	fs.BoolVar(&printConfig, "print-config", false, "print the effective configuration as YAML and exit (--print-config-as full)")
	fs.StringVar(&printAs, "print-config-as", "", "print the configuration and exit: full, minimal (what differs from the defaults) or diff (annotated with $both/$left/$right)")
	fs.BoolVar(&version, "version", false, "print the version, commit and Go version and exit (also -v, as chainweb-node)")
	fs.BoolVar(&version, "v", false, "the same as --version")
	fs.BoolVar(&info, "info", false, "print the program's name, version, commit and compiler and exit (also -i, as chainweb-node)")
	fs.BoolVar(&info, "i", false, "the same as --info")
	fs.BoolVar(&longInfo, "long-info", false, "print --info, the build settings and every module the binary holds, and exit")
	fs.BoolVar(&license, "license", false, "print the program's license and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, "", nil, errHelp
		}
		return cfg, "", nil, err
	}
	switch {
	case version:
		return cfg, "", nil, errVersion
	case info:
		return cfg, "", nil, errInfo
	case longInfo:
		return cfg, "", nil, errLongInfo
	case license:
		return cfg, "", nil, errLicense
	}
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "network" || f.Name == "chainweb-version":
			origin.network = true
			origin.chainweb = origin.chainweb || f.Name == "chainweb-version"
		case !ourFlags[f.Name]:
			origin.chainweb = true
		}
	})
	cfg.chainwebOrigin = origin.chainweb // the interfaces' defaults follow it (bindDefaults)
	if origin.chainweb && !origin.network {
		// chainweb-node's default network (DECISIONS.md): a chainweb-node configuration
		// that names none is one for mainnet01. Ours alone keep ours, development.
		cfg.Network = ledger.Mainnet01.Name
	}
	if fs.NArg() > 0 && !positional {
		return cfg, "", nil, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if printAs != "" {
		if printAs, err = printMode(printAs); err != nil {
			return cfg, "", nil, err
		}
	} else if printConfig {
		printAs = printFull
	}
	if err := cfg.finish(); err != nil {
		return cfg, "", nil, err
	}
	return cfg, printAs, fs.Args(), nil
}

func newFlagSet(cfg *Config, stderr io.Writer, warn func(string)) *flag.FlagSet {
	fs := flag.NewFlagSet("ledger-node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, o := range options {
		o.bind(fs, cfg, o.flag, fmt.Sprintf("%s (YAML: %s)", o.usage, o.yamlKey))
	}
	bindChainwebFlags(fs, cfg, warn)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n  ledger-node [flags]                      run a node\n"+
			"  ledger-node import-headers [flags] FILE  validate and store headers from FILE\n"+
			"  ledger-node restore --from DIR/ID --data-dir NEW  make a data directory from a backup\n"+
			"  ledger-node check --data-dir DIR         verify a data directory (read-only)\n"+
			"  ledger-node repair --data-dir DIR        repair a damaged data directory\n"+
			"  ledger-node reindex-transfers --data-dir DIR  index the transfers and continuations of older blocks\n"+
			"  ledger-node version                      print the version, commit and Go version\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// findConfigFiles pre-scans args for every --config-file, in order, so that the files are read
// before flags apply.
func findConfigFiles(args []string) ([]string, error) {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, p := range []string{"--config-file", "-config-file"} {
			if a == p {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("flag needs an argument: %s", p)
				}
				i++
				files = append(files, args[i])
			} else if v, ok := strings.CutPrefix(a, p+"="); ok {
				files = append(files, v)
			}
		}
	}
	return files, nil
}

// configOrigin is what the configuration sources said so far: whether one was chainweb-node's
// (a chainweb:, logging: or databaseDirectory key, or a flag only chainweb-node has), and
// whether one named the network.
type configOrigin struct {
	chainweb, network bool
}

// ourFlags are the flags of ours (options and the flags of loadConfigWarn); any other flag
// given is one of chainweb-node's (chainweb.go).
var ourFlags = func() map[string]bool {
	m := map[string]bool{"config-file": true, "print-config": true, "print-config-as": true, "version": true, "v": true,
		"info": true, "i": true, "long-info": true, "license": true, "help": true, "h": true}
	for _, o := range options {
		m[o.flag] = true
	}
	return m
}()

// readConfigFile applies the YAML file at path, or at the http(s) URL path, over cfg (see
// decodeConfig).
func readConfigFile(path string, cfg *Config, warn func(string), origin *configOrigin) error {
	var b []byte
	var err error
	if isConfigURL(path) {
		b, err = fetchConfigFile(path)
	} else if b, err = os.ReadFile(path); err != nil {
		err = fmt.Errorf("config file: %w", err)
	}
	if err != nil {
		return err
	}
	return decodeConfigFrom(path, b, cfg, warn, origin)
}

// isConfigURL tells a --config-file URL (chainweb-node takes http and https URLs) from a path.
func isConfigURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// configFetchTimeout bounds the fetch of a --config-file URL, connection and body together;
// maxConfigBytes bounds the body (configuration files are a few KiB).
var configFetchTimeout = 30 * time.Second

const maxConfigBytes = 4 << 20

// fetchConfigFile gets a configuration file by URL: an answer other than 200, no answer within
// configFetchTimeout, or a body over maxConfigBytes is an error naming the URL.
func fetchConfigFile(url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), configFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("config file %s: not a URL: %v", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("config file %s: the server answered %s", url, resp.Status)
		}
		var b []byte
		b, err = io.ReadAll(io.LimitReader(resp.Body, maxConfigBytes+1))
		if err == nil && len(b) > maxConfigBytes {
			return nil, fmt.Errorf("config file %s: larger than %d MiB; not a configuration file", url, maxConfigBytes>>20)
		}
		if err == nil {
			return b, nil
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return nil, fmt.Errorf("config file %s: no whole answer within %v", url, configFetchTimeout)
	}
	return nil, fmt.Errorf("config file %s: %v", url, err)
}

// fileConfig is a config file: our keys, strictly (an unknown key is an error with its line:
// a typo must not pass unnoticed), beside chainweb-node's sections, which are read leniently as
// chainweb-node reads them (chainweb.go).
type fileConfig struct {
	Config            `yaml:",inline"`
	Chainweb          yaml.Node `yaml:"chainweb"`
	Logging           yaml.Node `yaml:"logging"`
	DatabaseDirectory *string   `yaml:"databaseDirectory"`
}

// decodeConfig applies YAML b (from the file called path) over cfg: a missing key leaves its
// value, lists add to the lists of earlier files, chainweb-node's keys map onto ours.
func decodeConfig(path string, b []byte, cfg *Config, warn func(string)) error {
	return decodeConfigFrom(path, b, cfg, warn, &configOrigin{})
}

// decodeConfigFrom is decodeConfig noting in origin whether the file is chainweb-node's and
// whether it names the network.
func decodeConfigFrom(path string, b []byte, cfg *Config, warn func(string), origin *configOrigin) error {
	peers, miners := cfg.P2P.Peers, cfg.Mining.Coordination.Miners
	fc := fileConfig{Config: *cfg}
	fc.P2P.Peers, fc.Mining.Coordination.Miners = nil, nil
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&fc); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config file %s: %s", path, yamlerr.Text(err))
	}
	*cfg = fc.Config
	cfg.P2P.Peers = addPeers(peers, cfg.P2P.Peers...)
	cfg.Mining.Coordination.Miners = addMiners(miners, cfg.Mining.Coordination.Miners...)
	if fc.DatabaseDirectory != nil {
		cfg.DataDir = *fc.DatabaseDirectory
	}
	if fc.Chainweb.Kind != 0 || fc.Logging.Kind != 0 || fc.DatabaseDirectory != nil {
		origin.chainweb = true
	}
	if hasKey(b, "network") || hasKey(b, "chainweb", "chainwebVersion") {
		origin.network = true
	}
	m := chainwebMapper{file: path, cfg: cfg, warn: warn}
	if err := m.section("chainweb", &fc.Chainweb, chainwebKeys); err != nil {
		return err
	}
	return m.section("logging", &fc.Logging, loggingKeys)
}

// hasKey tells whether the YAML document b sets the key at path (to anything but null).
func hasKey(b []byte, path ...string) bool {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return false
	}
	n := doc.Content[0]
	for _, k := range path {
		if n.Kind != yaml.MappingNode {
			return false
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return false
		}
		n = next
	}
	return !isNull(n)
}

// addPeers adds peers to a list, each once, as chainweb-node adds p2p.peers of later sources.
func addPeers(list []string, more ...string) []string {
	for _, p := range more {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}

// addMiners adds miners to a list, each once (chainweb-node keeps a set).
func addMiners(list []MinerID, more ...MinerID) []MinerID {
	for _, m := range more {
		if !slices.ContainsFunc(list, func(o MinerID) bool {
			return o.Account == m.Account && o.Predicate == m.Predicate && slices.Equal(o.PublicKeys, m.PublicKeys)
		}) {
			list = append(list, m)
		}
	}
	return list
}

// finish fills derived defaults and checks every value.
func (c *Config) finish() error {
	if _, ok := ledger.VersionByName(c.Network); !ok {
		return fmt.Errorf("network %q is unknown (known: %s)", c.Network, strings.Join(ledger.VersionNames(), ", "))
	}
	if c.DataDir == "" {
		c.DataDir = defaultDataDir(c.Network)
	}
	// chainweb-node reads levels and formats case-insensitively.
	c.LogLevel, c.LogFormat = strings.ToLower(c.LogLevel), strings.ToLower(c.LogFormat)
	switch c.LogLevel {
	case "debug", "info", "warn", "error", "quiet":
	default:
		return fmt.Errorf("logLevel %q: want debug, info, warn, error or quiet", c.LogLevel)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("logFormat (--log-format) %q: want text or json", c.LogFormat)
	}
	if err := checkLogHandle(c.LogHandle); err != nil {
		return err
	}
	c.bindDefaults()
	c.ServiceAPI.Interface = listenHost(c.ServiceAPI.Interface)
	c.P2P.Interface = listenHost(c.P2P.Interface)
	c.Mining.OnDemand.Interface = listenHost(c.Mining.OnDemand.Interface)
	if c.ServiceAPI.Port < 0 || c.ServiceAPI.Port > 65535 {
		return fmt.Errorf("serviceApi.port %d is not a TCP port", c.ServiceAPI.Port)
	}
	if c.ServiceAPI.Interface == "" {
		return fmt.Errorf("serviceApi.interface is empty")
	}
	if c.ServiceAPI.PayloadBatchLimit < 0 {
		return fmt.Errorf("serviceApi.payloadBatchLimit %d is negative", c.ServiceAPI.PayloadBatchLimit)
	}
	if err := checkMetricsPath(c.ServiceAPI.MetricsPath); err != nil {
		return err
	}
	if c.Runtime.GCPercent < 10 || c.Runtime.MemoryLimitMiB < 0 {
		return fmt.Errorf("runtime.gcPercent (--gc-percent) %d: want 10 or more; runtime.memoryLimitMiB (--memory-limit-mib) %d: want 0 or more",
			c.Runtime.GCPercent, c.Runtime.MemoryLimitMiB)
	}
	if c.Store.HeaderCacheSize <= 0 || c.Store.BlockCacheMiB <= 0 {
		return fmt.Errorf("store.headerCacheSize and store.blockCacheMiB must be positive")
	}
	if err := c.Mining.finish(c.Network); err != nil {
		return err
	}
	if err := c.Private.check(); err != nil {
		return err
	}
	for _, l := range []struct {
		key string
		n   int
	}{{"serviceApi.maxConnections", c.ServiceAPI.MaxConnections}, {"serviceApi.maxConnectionsPerAddress", c.ServiceAPI.MaxConnectionsPerAddress},
		{"p2p.maxConnections", c.P2P.MaxConnections}, {"p2p.maxConnectionsPerAddress", c.P2P.MaxConnectionsPerAddress}} {
		if l.n < 0 {
			return fmt.Errorf("%s %d: a number of connections, 0 for the default", l.key, l.n)
		}
	}
	if c.P2P.Port < 0 || c.P2P.Port > 65535 {
		return fmt.Errorf("p2p.port %d is not a TCP port", c.P2P.Port)
	}
	if c.P2P.Interface == "" {
		return fmt.Errorf("p2p.interface is empty")
	}
	if th := c.P2P.Throttling; !(th.Global > 0 && th.PutPeer > 0 && th.Mempool > 0) {
		return fmt.Errorf("p2p.throttling: global, putPeer and mempool are requests per second and must be positive (got %v, %v, %v)",
			th.Global, th.PutPeer, th.Mempool)
	}
	if err := c.P2P.check(); err != nil {
		return err
	}
	if c.Backup.Keep < 1 {
		return fmt.Errorf("backup.keep %d: the backups to keep, at least 1", c.Backup.Keep)
	}
	if c.Backup.API.Enabled && c.Backup.Directory == "" {
		return errors.New("backup.api.enabled (--enable-backup-api) needs backup.directory (--backup-directory): where the backups go")
	}
	if err := c.Execution.finish(); err != nil {
		return err
	}
	if c.NodeServiceDate != "" {
		if _, err := time.Parse(time.RFC3339, c.NodeServiceDate); err != nil {
			return fmt.Errorf("nodeServiceDate %q is not an ISO 8601 timestamp like 2026-12-01T00:00:00Z", c.NodeServiceDate)
		}
	}
	return nil
}

// finish fills the execution defaults that derive from others and checks the bounds.
func (e *ExecConfig) finish() error {
	if e.BlockGasLimit == 0 || e.BlockGasLimit > chain.MaxBlockGasLimit {
		return fmt.Errorf("execution.blockGasLimit (--block-gas-limit) %d: want 1 to %d (the largest block any node accepts)",
			e.BlockGasLimit, chain.MaxBlockGasLimit)
	}
	if e.LocalGasLimit == 0 {
		e.LocalGasLimit = e.BlockGasLimit
	}
	if e.LocalTimeLimit < 0 {
		return fmt.Errorf("execution.localTimeLimit (--local-time-limit) %v is negative", e.LocalTimeLimit)
	}
	if e.LocalTimeLimit == 0 {
		e.LocalTimeLimit = txexec.TxTimeLimit(e.LocalGasLimit)
	}
	if e.MaxResultBytes < minResultBytes {
		return fmt.Errorf("execution.maxResultBytes (--max-result-bytes) %d: want at least %d", e.MaxResultBytes, minResultBytes)
	}
	if need := e.MaxResultBytes + chain.ResultOverhead + minResultBytes; e.MaxBlockOutputBytes < need {
		return fmt.Errorf("execution.maxBlockOutputBytes (--max-block-output-bytes) %d: want at least %d, room for the coinbase and one result of maxResultBytes",
			e.MaxBlockOutputBytes, need)
	}
	if e.EvalSlots < 0 {
		return fmt.Errorf("execution.evalSlots (--eval-slots) %d is negative", e.EvalSlots)
	}
	if e.EvalSlots == 0 {
		e.EvalSlots = actors.DefaultEvalSlots()
	}
	if e.EvalWait <= 0 {
		return fmt.Errorf("execution.evalWait (--eval-wait) %v: want a positive duration", e.EvalWait)
	}
	return nil
}

// minResultBytes is the smallest result cap: a coinbase's or a failure's result is some
// hundreds of bytes.
const minResultBytes = 4096

// check checks the private command settings.
func (p *PrivateConfig) check() error {
	if p.EntitySecret == redactedSecret {
		return fmt.Errorf("private.entitySecret: %q is what --print-config prints in place of the secret: put the key itself "+
			"(64 hex digits) here, or leave the key out to use <data-dir>/private/entity.key", redactedSecret)
	}
	if p.EntitySecret != "" {
		if _, err := server.ParseBoxKey(p.EntitySecret); err != nil {
			return fmt.Errorf("private.entitySecret: %v", err)
		}
	}
	for name, e := range p.Entities {
		if name == "" {
			return errors.New("private.entities: an entity needs a name")
		}
		if _, err := server.ParseBoxKey(e.PublicKey); err != nil {
			return fmt.Errorf("private.entities.%s.publicKey: %v", name, err)
		}
		if e.URL != "" && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
			return fmt.Errorf("private.entities.%s.url: want http://HOST:PORT, got %q", name, e.URL)
		}
	}
	return nil
}

// finish fills the network's mining defaults and checks the mining settings.
func (m *MiningConfig) finish(network string) error {
	dev := network == ledger.Development.Name
	switch m.Mode {
	case "":
		// An operator who turns the mining API on without naming a mode brings miners of
		// their own (chainweb-node's nodeMining is off by default): they mine alone.
		m.Mode = "off"
		if dev && !m.Coordination.Enabled {
			m.Mode = "pow"
		}
	case "off":
	case "pow", "on-demand":
		if !dev {
			return fmt.Errorf("mining.mode %s: only the development network can be mined by this node (network is %s)", m.Mode, network)
		}
	default:
		return fmt.Errorf("mining.mode %q: want pow, on-demand or off", m.Mode)
	}
	if m.DisablePow && !dev {
		return fmt.Errorf("mining.disablePow (--disable-pow) applies to the development network only (network is %s)", network)
	}
	if err := m.Coordination.check(dev, network); err != nil {
		return err
	}
	if err := m.OnDemand.check(); err != nil {
		return err
	}
	switch {
	case !dev && m.BlockDelay != 0:
		return fmt.Errorf("mining.blockDelay (--block-delay) applies to the development network only (network is %s)", network)
	case dev && m.BlockDelay == 0:
		m.BlockDelay = defaultBlockDelay
	case dev && (m.BlockDelay < minBlockDelay || m.BlockDelay > maxBlockDelay):
		return fmt.Errorf("mining.blockDelay %v: want between %v and %v", m.BlockDelay, minBlockDelay, maxBlockDelay)
	case dev && m.BlockDelay%time.Microsecond != 0:
		return fmt.Errorf("mining.blockDelay %v: block delays are whole microseconds", m.BlockDelay)
	}
	if m.PublicKey != "" {
		if b, err := hex.DecodeString(m.PublicKey); err != nil || len(b) != 32 {
			return fmt.Errorf("mining.publicKey %q: want 64 hex digits (a 32-byte ed25519 public key)", m.PublicKey)
		}
	}
	return nil
}

// check checks the mining API settings.
func (c *CoordinationConfig) check(dev bool, network string) error {
	if c.Enabled && !dev {
		return fmt.Errorf("mining.coordination.enabled (--enable-mining-coordination): only the development network can be mined by this node (network is %s)", network)
	}
	if c.Limit < 0 || c.UpdateStreamLimit < 0 || c.UpdateStreamTimeout <= 0 || c.PayloadRefreshDelay <= 0 {
		return errors.New("mining.coordination: limit and updateStreamLimit must not be negative, updateStreamTimeout and payloadRefreshDelay must be positive")
	}
	for i, m := range c.Miners {
		if m.Account == "" || m.Predicate == "" || len(m.PublicKeys) == 0 {
			return fmt.Errorf("mining.coordination.miners[%d]: a miner needs an account, public-keys and a predicate", i)
		}
		for _, k := range m.PublicKeys {
			if b, err := hex.DecodeString(k); err != nil || len(b) != 32 {
				return fmt.Errorf("mining.coordination.miners[%d] (--mining-public-key): key %q: want 64 hex digits (a 32-byte ed25519 public key)", i, k)
			}
		}
	}
	return nil
}

// check checks the on-demand mining settings.
func (o *OnDemandConfig) check() error {
	switch {
	case o.StartBlocks < 0 || o.ConfirmationDepth < 0:
		return errors.New("mining.onDemand: startBlocks and confirmationDepth must not be negative")
	case o.IdlePeriod < 0:
		return fmt.Errorf("mining.onDemand.idlePeriod %v is negative (0 turns idle blocks off)", o.IdlePeriod)
	case o.Port < 0 || o.Port > 65535:
		return fmt.Errorf("mining.onDemand.port %d is not a TCP port", o.Port)
	case o.Port != 0 && o.Interface == "":
		return errors.New("mining.onDemand.interface is empty")
	}
	return nil
}

// defaultDataDir is $XDG_DATA_HOME/ledger-node/<network>, or ~/.local/share/... without it.
func defaultDataDir(network string) string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "ledger-node", network)
}

// p2pAddr is the listen address of the peer API.
func (c *Config) p2pAddr() string {
	return net.JoinHostPort(c.P2P.Interface, fmt.Sprint(c.P2P.Port))
}

// serviceAddr is the listen address of the service API.
func (c *Config) serviceAddr() string {
	return net.JoinHostPort(c.ServiceAPI.Interface, fmt.Sprint(c.ServiceAPI.Port))
}

// marshalYAML is the --print-config output.
func (c *Config) marshalYAML() []byte {
	b, err := yaml.Marshal(c)
	if err != nil { // a struct of plain fields always marshals
		panic(err)
	}
	return b
}
