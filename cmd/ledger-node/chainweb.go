package main

import (
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgernode/ledger-node/internal/yamlerr"
	"github.com/ledgernode/ledger-node/transport"
)

// chainweb-node's configuration (chainweb-mining-and-config.md §3), read so that an operator's
// files and flags work unchanged: its chainweb: and logging: sections map onto Config, and its
// flags onto ours. chainweb-node ignores keys it does not know; a key that has no meaning here
// (p2p.tls, sessions, Pact tuning this node does not have) is ignored too, with one
// warning each, so that nothing is dropped silently.

// keyRule is what a chainweb-node key does here: apply sets our setting from the value; a nil
// apply marks a chainweb-node key with no meaning for this node.
type keyRule struct {
	apply func(m *chainwebMapper, n *yaml.Node) error
}

// chainwebMapper maps one file's chainweb-node sections onto cfg.
type chainwebMapper struct {
	file string
	name string // of the section being mapped: "chainweb" or "logging"
	cfg  *Config
	warn func(string)
}

// set is the rule of a key whose value decodes into the setting field returns.
func set[T any](field func(*Config) *T) keyRule {
	return keyRule{func(m *chainwebMapper, n *yaml.Node) error { return n.Decode(field(m.cfg)) }}
}

// chainwebKeys are the keys of chainweb-node 2.32's chainweb: section (ChainwebConfiguration),
// by dotted path.
var chainwebKeys = map[string]keyRule{
	"chainwebVersion":              set(func(c *Config) *string { return &c.Network }),
	"headerStream":                 set(func(c *Config) *bool { return &c.ServiceAPI.HeaderStream }),
	"allowReadsInLocal":            set(func(c *Config) *bool { return &c.Execution.AllowReadsInLocal }),
	"gasLimitOfBlock":              set(func(c *Config) *uint64 { return &c.Execution.BlockGasLimit }),
	"serviceApi.port":              set(func(c *Config) *int { return &c.ServiceAPI.Port }),
	"serviceApi.interface":         set(func(c *Config) *string { return &c.ServiceAPI.Interface }),
	"serviceApi.payloadBatchLimit": set(func(c *Config) *int { return &c.ServiceAPI.PayloadBatchLimit }),
	"p2p.peer.hostaddress.port":    set(func(c *Config) *int { return &c.P2P.Port }),
	"throttling.global":            set(func(c *Config) *float64 { return &c.P2P.Throttling.Global }),
	"throttling.putPeer":           set(func(c *Config) *float64 { return &c.P2P.Throttling.PutPeer }),
	"throttling.mempool":           set(func(c *Config) *float64 { return &c.P2P.Throttling.Mempool }),
	"p2p.peer.interface":           set(func(c *Config) *string { return &c.P2P.Interface }),
	"p2p.peers":                    {applyPeers},
	"mining.coordination.enabled":  set(func(c *Config) *bool { return &c.Mining.Coordination.Enabled }),
	"mining.coordination.limit":    set(func(c *Config) *int { return &c.Mining.Coordination.Limit }),
	"mining.coordination.updateStreamLimit": set(func(c *Config) *int {
		return &c.Mining.Coordination.UpdateStreamLimit
	}),
	"mining.coordination.updateStreamTimeout": set(func(c *Config) *int {
		return &c.Mining.Coordination.UpdateStreamTimeout
	}),
	"mining.coordination.payloadRefreshDelay": set(func(c *Config) *int64 {
		return &c.Mining.Coordination.PayloadRefreshDelay
	}),
	"mining.coordination.miners": {applyMiners},
	"mining.nodeMining.enabled":  {applyNodeMining},
	"mining.nodeMining.miner":    {applyNodeMiner},
	"backup.api.enabled":         set(func(c *Config) *bool { return &c.Backup.API.Enabled }),
	"backup.directory":           set(func(c *Config) *string { return &c.Backup.Directory }),
	"onlySyncPact":               set(func(c *Config) *bool { return &c.OnlySyncPact }),

	// The announced host and the peer API's certificate (p2p.go).
	"p2p.peer.hostaddress.hostname": set(func(c *Config) *string { return &c.P2P.Hostname }),
	"p2p.peer.certificateChain":     set(func(c *Config) *string { return &c.P2P.CertificateChain }),
	"p2p.peer.certificateChainFile": set(func(c *Config) *string { return &c.P2P.CertificateChainFile }),
	"p2p.peer.key":                  set(func(c *Config) *string { return &c.P2P.Key }),
	"p2p.peer.keyFile":              set(func(c *Config) *string { return &c.P2P.KeyFile }),

	// No meaning here: the peer API is always HTTPS (p2p.tls), peers are not bootstrapped,
	// sessions, throttling and mempool sync are not tunable, and the Pact service has none of
	// these knobs.
	"backup.api.configuration": {}, "reintroTxs": {},
	"cuts.pruneChainDatabase": {}, "cuts.fetchTimeout": {}, "cuts.initialBlockHeightLimit": {},
	"cuts.fastForwardBlockHeightLimit": {}, "p2p.maxSessionCount": {}, "p2p.maxPeerCount": {}, "p2p.sessionTimeout": {},
	"p2p.ignoreBootstrapNodes": {}, "p2p.private": {}, "p2p.bootstrapReachability": {}, "p2p.tls": {},
	"p2p.validateSpec":   {},
	"mempoolP2p.enabled": {}, "mempoolP2p.configuration.maxSessionCount": {},
	"mempoolP2p.configuration.sessionTimeout": {}, "mempoolP2p.configuration.pollInterval": {},
	"logGas": {}, "minGasPrice": {}, "pactQueueSize": {}, "reorgLimit": {}, "preInsertCheckTimeout": {},
	"fullHistoricPactState": {}, "serviceApi.validateSpec": {},
	"readOnlyReplay": {}, "syncPactChains": {}, "moduleCacheLimit": {}, "enableLocalTimeout": {},
}

// loggingKeys are the keys of chainweb-node's logging: section.
var loggingKeys = map[string]keyRule{
	"logger.log_level": set(func(c *Config) *string { return &c.LogLevel }),
	"backend.format":   set(func(c *Config) *string { return &c.LogFormat }),
	"backend.handle":   set(func(c *Config) *string { return &c.LogHandle }),
	"clusterId":        set(func(c *Config) *string { return &c.ClusterID }),

	// No meaning here: slog writes synchronously (no queue or policy), there is no colour,
	// no telemetry log and no per-scope filter.
	"logger.queue_size": {}, "logger.scope": {}, "logger.policy": {}, "logger.exception_limit": {},
	"logger.exception_wait": {}, "logger.exit_timeout": {}, "backend.color": {},
	"telemetryBackend.enabled": {}, "telemetryBackend.configuration.color": {},
	"telemetryBackend.configuration.format": {}, "telemetryBackend.configuration.handle": {},
	"filter.rules": {}, "filter.default": {}, "filter.default-rate": {},
}

// section maps the section called name (n; absent or null: nothing) by its rules.
func (m chainwebMapper) section(name string, n *yaml.Node, rules map[string]keyRule) error {
	if n.Kind == 0 || isNull(n) {
		return nil
	}
	m.name = name
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("config file %s line %d: %s must be a mapping", m.file, n.Line, name)
	}
	return m.walk("", n, rules)
}

// walk maps the keys of the mapping n at path prefix.
func (m chainwebMapper) walk(prefix string, n *yaml.Node, rules map[string]keyRule) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if isNull(v) || isEmpty(v) {
			continue // nothing set, nothing to ignore
		}
		rule, known := rules[path]
		switch {
		case known && rule.apply != nil:
			if err := rule.apply(&m, v); err != nil {
				return fmt.Errorf("config file %s: %s.%s: %s", m.file, m.name, path, yamlerr.Text(err))
			}
		case !known && v.Kind == yaml.MappingNode && hasKeysUnder(rules, path):
			if err := m.walk(path, v, rules); err != nil {
				return err
			}
		case known:
			m.warn(fmt.Sprintf("config file %s line %d: %s.%s has no meaning for ledger-node; ignored", m.file, k.Line, m.name, path))
		default:
			m.warn(fmt.Sprintf("config file %s line %d: %s.%s is not a chainweb-node 2.32 setting (chainweb-node ignores it too); ignored",
				m.file, k.Line, m.name, path))
		}
	}
	return nil
}

func hasKeysUnder(rules map[string]keyRule, path string) bool {
	for k := range rules {
		if strings.HasPrefix(k, path+".") {
			return true
		}
	}
	return false
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func isEmpty(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) == 0
}

// chainwebPeer is an entry of chainweb's p2p.peers.
type chainwebPeer struct {
	// ID is the SHA-256 fingerprint of the peer's certificate (null: any certificate).
	ID      *string `yaml:"id"`
	Address struct {
		Hostname string `yaml:"hostname"`
		Port     int    `yaml:"port"`
	} `yaml:"address"`
}

// applyPeers adds chainweb's p2p.peers to ours (lists add up across sources, as upstream).
func applyPeers(m *chainwebMapper, n *yaml.Node) error {
	var peers []chainwebPeer
	if err := n.Decode(&peers); err != nil {
		return err
	}
	for _, p := range peers {
		info := net.JoinHostPort(p.Address.Hostname, strconv.Itoa(p.Address.Port))
		if p.ID != nil && *p.ID != "" {
			info = *p.ID + "@" + info
		}
		m.cfg.P2P.Peers = addPeers(m.cfg.P2P.Peers, info)
	}
	return nil
}

func applyMiners(m *chainwebMapper, n *yaml.Node) error {
	var miners []MinerID
	if err := n.Decode(&miners); err != nil {
		return err
	}
	m.cfg.Mining.Coordination.Miners = addMiners(m.cfg.Mining.Coordination.Miners, miners...)
	return nil
}

// applyNodeMining maps nodeMining.enabled onto the mining mode: chainweb-node's in-node miner
// is this node's built-in pow miner, and without it chainweb-node mines nothing itself.
func applyNodeMining(m *chainwebMapper, n *yaml.Node) error {
	var on bool
	if err := n.Decode(&on); err != nil {
		return err
	}
	m.cfg.Mining.Mode = map[bool]string{true: "pow", false: "off"}[on]
	return nil
}

// applyNodeMiner maps nodeMining.miner onto the miner account and key of mined blocks.
func applyNodeMiner(m *chainwebMapper, n *yaml.Node) error {
	var miner MinerID
	if err := n.Decode(&miner); err != nil {
		return err
	}
	if len(miner.PublicKeys) > 1 || miner.Predicate != "" && miner.Predicate != "keys-all" {
		return fmt.Errorf("the built-in miner is paid to one key with keys-all, not %d keys with %s",
			len(miner.PublicKeys), miner.Predicate)
	}
	m.cfg.Mining.Account = miner.Account
	if len(miner.PublicKeys) == 1 {
		m.cfg.Mining.PublicKey = miner.PublicKeys[0]
	}
	return nil
}

// listenHost turns the interface names of chainweb-node (Warp's host preferences: * any,
// *4 and !4 IPv4, *6 and !6 IPv6) into listen addresses; others stay as they are.
func listenHost(s string) string {
	switch s {
	case "*", "*4", "!4":
		return "0.0.0.0"
	case "*6", "!6":
		return "::"
	}
	return s
}

// stripRTS removes GHC runtime options (+RTS … -RTS, or +RTS to the end) from args: scripts
// written for chainweb-node pass them, and they mean nothing to a Go program.
func stripRTS(args []string) []string {
	var out []string
	inRTS := false
	for _, a := range args {
		switch {
		case a == "+RTS":
			inRTS = true
		case a == "-RTS" && inRTS:
			inRTS = false
		case !inRTS:
			out = append(out, a)
		}
	}
	return out
}

// parseKnownPeer reads chainweb's --known-peer-info [PEERID@]HOST:PORT: the peer id, when
// given, is the fingerprint of the certificate the peer must present.
func parseKnownPeer(s string) (string, error) {
	p, err := transport.ParsePeerInfo(s)
	if err != nil {
		return "", fmt.Errorf("--known-peer-info: %v", err)
	}
	return p.Text(), nil
}

// chainwebSwitches are chainweb-node's flags without a value that have no meaning here; they
// are accepted with a warning.
var chainwebSwitches = []string{
	"enable-ignore-bootstrap-nodes", "disable-ignore-bootstrap-nodes", "enable-private", "disable-private",
	"enable-tls", "disable-tls", "enable-validate-spec", "disable-validate-spec",
	"enable-service-validate-spec", "disable-service-validate-spec", "enable-mempool-p2p", "disable-mempool-p2p",
	"enable-telemetry-logger", "disable-telemetry-logger", "enable-tx-reintro", "disable-tx-reintro",
	"log-gas", "no-log-gas", "full-historic-pact-state", "no-full-historic-pact-state",
	"read-only-replay", "no-read-only-replay",
}

// chainwebValueFlags are chainweb-node's flags with a value that have no meaning here.
var chainwebValueFlags = []string{
	"bootstrap-reachability", "p2p-max-session-count", "p2p-max-peer-count", "p2p-session-timeout",
	"mempool-p2p-max-session-count", "mempool-p2p-session-timeout", "mempool-p2p-poll-interval",
	"prune-chain-database", "cut-fetch-timeout", "initial-block-height-limit", "fast-forward-block-height-limit",
	"min-gas-price", "pact-queue-size", "reorg-limit", "pre-insert-check-timeout", "sync-pact-chains",
	"module-cache-limit", "enable-local-timeout", "queue-size", "log-policy", "exception-limit", "exception-wait",
	"exit-timeout", "color", "telemetry-log-format", "telemetry-log-handle", "telemetry-color", "log-filter-rule",
	"log-filter-default", "fork-upper-bound",
}

// bindChainwebFlags adds chainweb-node's names of our settings, and its flags that have no
// meaning here (each warns once when given).
func bindChainwebFlags(fs *flag.FlagSet, c *Config, warn func(string)) {
	fs.StringVar(&c.Network, "chainweb-version", c.Network, "chainweb-node's name of --network")
	fs.StringVar(&c.DataDir, "database-directory", c.DataDir, "chainweb-node's name of --data-dir")
	fs.Func("known-peer-info", "chainweb-node's --peer: [PEERID@]HOST:PORT, the peer id the fingerprint of the certificate the peer must present (repeatable)",
		func(v string) error {
			addr, err := parseKnownPeer(v)
			if err == nil {
				c.P2P.Peers = addPeers(c.P2P.Peers, addr)
			}
			return err
		})
	fs.Func("node-mining-public-key", "chainweb-node's --miner-key", func(v string) error {
		c.Mining.PublicKey = v
		return nil
	})
	switchTo := func(name, usage string, apply func(on bool)) {
		fs.BoolFunc(name, usage, func(v string) error {
			on, err := strconv.ParseBool(v)
			if err == nil {
				apply(on)
			}
			return err
		})
	}
	switchTo("no-header-stream", "chainweb-node's --header-stream=false", func(on bool) { c.ServiceAPI.HeaderStream = !on })
	switchTo("no-allowReadsInLocal", "chainweb-node's --allowReadsInLocal=false",
		func(on bool) { c.Execution.AllowReadsInLocal = !on })
	switchTo("enable-node-mining", "chainweb-node's --mining pow", func(on bool) {
		c.Mining.Mode = map[bool]string{true: "pow", false: "off"}[on]
	})
	switchTo("disable-node-mining", "chainweb-node's --mining off", func(on bool) {
		c.Mining.Mode = map[bool]string{true: "off", false: "pow"}[on]
	})
	switchTo("disable-mining-coordination", "chainweb-node's --enable-mining-coordination=false",
		func(on bool) { c.Mining.Coordination.Enabled = !on })
	switchTo("disable-backup-api", "chainweb-node's --enable-backup-api=false", func(on bool) { c.Backup.API.Enabled = !on })
	switchTo("disable-reset-chain-databases", "chainweb-node's --enable-reset-chain-databases=false",
		func(on bool) { c.ResetChainDatabases = !on })
	switchTo("no-only-sync-pact", "chainweb-node's --only-sync-pact=false", func(on bool) { c.OnlySyncPact = !on })
	// chainweb-node's -c is yet-another-logger's short name of --color (auto, true or false:
	// ANSI colours in text logs), which has no meaning here.
	fs.Func("c", "chainweb-node's -c, short for --color; no meaning here (warns)", func(string) error {
		warn("flag -c (--color) has no meaning for ledger-node; ignored")
		return nil
	})
	ignored := func(name string) string {
		return fmt.Sprintf("flag --%s has no meaning for ledger-node; ignored", name)
	}
	for _, name := range chainwebSwitches {
		fs.BoolFunc(name, "chainweb-node's; no meaning here (warns)", func(string) error {
			warn(ignored(name))
			return nil
		})
	}
	for _, name := range chainwebValueFlags {
		fs.Func(name, "chainweb-node's; no meaning here (warns)", func(string) error {
			warn(ignored(name))
			return nil
		})
	}
}
