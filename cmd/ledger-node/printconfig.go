package main

import (
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgernode/ledger-node/mempool"
	"github.com/ledgernode/ledger-node/transport"
)

// --print-config-as, as configuration-tools does it for chainweb-node (§3.5), printed in this
// node's schema: full is the effective configuration; minimal what differs from the defaults;
// diff the whole document annotated, {$both: v} where equal, {$left: default} or
// {$right: actual} where one side has nothing, {$left: default, $right: actual} where they
// differ.

const (
	printFull    = "full"
	printMinimal = "minimal"
	printDiff    = "diff"
)

// printMode reads a --print-config-as mode, case-insensitively; the error text is upstream's.
func printMode(s string) (string, error) {
	switch m := strings.ToLower(s); m {
	case printFull, printMinimal, printDiff:
		return m, nil
	}
	return "", errors.New("unknow print configuration mode")
}

// printConfig renders cfg in mode: YAML, with defaults (the configuration with no file and no
// flag, finished the same way) as the left side of minimal and diff.
func printConfig(cfg Config, mode string) []byte {
	cfg = cfg.redacted()
	if mode == printFull {
		return cfg.marshalYAML()
	}
	def := DefaultConfig()
	def.finish() // the defaults are valid
	d := diffNodes(toNode(def), toNode(cfg))
	if mode == printMinimal {
		d = onlyRight(d)
		if d == nil {
			d = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} // nothing differs
		}
	}
	b, err := yaml.Marshal(d)
	if err != nil { // a tree of plain nodes always marshals
		panic(err)
	}
	return b
}

// toNode is cfg as a YAML tree.
func toNode(cfg Config) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(&cfg); err != nil {
		panic(err)
	}
	return &n
}

// equalNodes reports whether two trees hold the same data.
func equalNodes(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.ScalarNode {
		return a.Value == b.Value && a.ShortTag() == b.ShortTag()
	}
	for i := range a.Content {
		if !equalNodes(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// annotated is the mapping {k1: v1, k2: v2, …}.
func annotated(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i < len(kv); i += 2 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv[i].(string)}, kv[i+1].(*yaml.Node))
	}
	return m
}

// diffNodes annotates the difference of left and right as configuration-tools' diff does:
// equal values collapse into one $both, mappings are compared key by key (left's keys in
// order, then right's own), sequences element by element with a look-ahead of one.
func diffNodes(l, r *yaml.Node) *yaml.Node {
	switch {
	case equalNodes(l, r):
		return annotated("$both", r)
	case l.Kind == yaml.MappingNode && r.Kind == yaml.MappingNode:
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		rv := map[string]*yaml.Node{}
		for i := 0; i+1 < len(r.Content); i += 2 {
			rv[r.Content[i].Value] = r.Content[i+1]
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(l.Content); i += 2 {
			k, v := l.Content[i], l.Content[i+1]
			seen[k.Value] = true
			if w, ok := rv[k.Value]; ok {
				out.Content = append(out.Content, k, diffNodes(v, w))
			} else {
				out.Content = append(out.Content, k, annotated("$left", v))
			}
		}
		for i := 0; i+1 < len(r.Content); i += 2 {
			if k := r.Content[i]; !seen[k.Value] {
				out.Content = append(out.Content, k, annotated("$right", r.Content[i+1]))
			}
		}
		return out
	case l.Kind == yaml.SequenceNode && r.Kind == yaml.SequenceNode:
		return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: diffSeqs(l.Content, r.Content)}
	case isNull(l):
		return annotated("$right", r)
	case isNull(r):
		return annotated("$left", l)
	}
	return annotated("$left", l, "$right", r)
}

// diffSeqs is configuration-tools' naive list merge with a look-ahead of one element.
func diffSeqs(a, b []*yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for len(a) > 0 && len(b) > 0 {
		switch {
		case equalNodes(a[0], b[0]):
			out, a, b = append(out, annotated("$both", a[0])), a[1:], b[1:]
		case len(a) > 1 && len(b) > 1 && equalNodes(a[0], b[1]):
			out, b = append(out, annotated("$right", b[0])), b[1:]
		case len(a) > 1 && len(b) > 1 && equalNodes(a[1], b[0]):
			out, a = append(out, annotated("$left", a[0])), a[1:]
		default:
			out, a, b = append(out, annotated("$left", a[0], "$right", b[0])), a[1:], b[1:]
		}
	}
	for _, x := range a {
		out = append(out, annotated("$left", x))
	}
	for _, x := range b {
		out = append(out, annotated("$right", x))
	}
	return out
}

// onlyRight resolves an annotated tree to what only the right side has (configuration-tools'
// resolveOnlyRight): equal and left-only values go, and so do the entries that became empty
// (nil).
func onlyRight(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 && strings.HasPrefix(n.Content[0].Value, "$") {
		var right *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "$right" {
				right = n.Content[i+1]
			}
		}
		return right
	}
	out := &yaml.Node{Kind: n.Kind, Tag: n.Tag}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := onlyRight(n.Content[i+1]); v != nil {
				out.Content = append(out.Content, n.Content[i], v)
			}
		}
	case yaml.SequenceNode:
		for _, x := range n.Content {
			if v := onlyRight(x); v != nil {
				out.Content = append(out.Content, v)
			}
		}
	default:
		return n
	}
	return out
}

// chainwebConfigJSON is the body of GET /config on the peer API (§4): the effective
// configuration in the shape of chainweb-node's ChainwebConfiguration (its chainweb: section),
// with upstream's redactions (no certificates, no miners, no service API address, the default
// backup settings), and nothing of this node's own sections (private keys in particular).
// Settings this node does not have show the value it behaves as (HTTPS: tls true;
// upstream's throttling rates; its mempool minimum gas price) or upstream's default. self is
// the peer API address this node announces. Keys come sorted, as aeson writes them.
func chainwebConfigJSON(cfg Config, self string) []byte {
	host, port, _ := net.SplitHostPort(self)
	p, _ := strconv.Atoi(port)
	peers := []any{}
	for _, s := range cfg.P2P.Peers {
		if p, err := transport.ParsePeerInfo(s); err == nil {
			// A map, so that the keys come sorted as everywhere in this document.
			peers = append(peers, map[string]any{"id": p.ID, "address": map[string]any{"hostname": p.Address.Hostname, "port": p.Address.Port}})
		}
	}
	mining := cfg.Mining.Mode != "off"
	doc := map[string]any{
		"chainwebVersion": cfg.Network,
		"cuts": map[string]any{"pruneChainDatabase": "none", "fetchTimeout": 3000000,
			"initialBlockHeightLimit": nil, "fastForwardBlockHeightLimit": nil},
		"mining": map[string]any{
			"coordination": map[string]any{"enabled": cfg.Mining.Coordination.Enabled, "limit": cfg.Mining.Coordination.Limit,
				"miners": []any{}, "updateStreamLimit": cfg.Mining.Coordination.UpdateStreamLimit,
				"updateStreamTimeout": cfg.Mining.Coordination.UpdateStreamTimeout,
				"payloadRefreshDelay": cfg.Mining.Coordination.PayloadRefreshDelay},
			"nodeMining": map[string]any{"enabled": mining,
				"miner": map[string]any{"account": "", "predicate": "keys-all", "public-keys": []any{}}},
		},
		"headerStream": cfg.ServiceAPI.HeaderStream,
		"reintroTxs":   true,
		"p2p": map[string]any{
			"peer": map[string]any{"hostaddress": map[string]any{"hostname": host, "port": p},
				"interface": cfg.P2P.Interface, "certificateChain": nil, "certificateChainFile": nil, "key": nil, "keyFile": nil},
			"maxSessionCount": 10, "maxPeerCount": 50, "sessionTimeout": 240, "peers": peers,
			"ignoreBootstrapNodes": true, "private": false, "bootstrapReachability": 0.5, "tls": true,
		},
		"throttling": map[string]any{"global": cfg.P2P.Throttling.Global, "putPeer": cfg.P2P.Throttling.PutPeer,
			"mempool": cfg.P2P.Throttling.Mempool},
		"mempoolP2p": map[string]any{"enabled": true,
			"configuration": map[string]any{"maxSessionCount": 6, "sessionTimeout": 300, "pollInterval": 30}},
		"gasLimitOfBlock":       cfg.Execution.BlockGasLimit,
		"logGas":                false,
		"minGasPrice":           json.RawMessage(mempool.DefaultMinGasPrice.Text()),
		"pactQueueSize":         2000,
		"reorgLimit":            480,
		"preInsertCheckTimeout": 1000000,
		"allowReadsInLocal":     cfg.Execution.AllowReadsInLocal,
		"fullHistoricPactState": true,
		"serviceApi": map[string]any{"port": 0, "interface": "invalid", "validateSpec": false,
			"payloadBatchLimit": cfg.ServiceAPI.PayloadBatchLimit},
		"onlySyncPact":       false,
		"readOnlyReplay":     false,
		"syncPactChains":     nil,
		"backup":             map[string]any{"api": map[string]any{"enabled": false, "configuration": map[string]any{}}, "directory": nil},
		"moduleCacheLimit":   62914560,
		"enableLocalTimeout": false,
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// redactedSecret stands for a secret in a printed configuration, which is shown to operators,
// pasted into tickets and kept in logs. Loading it back is refused with a message saying so
// (Config.validate), rather than taken for a key.
const redactedSecret = "<redacted>"

// redacted is cfg with its secrets replaced by redactedSecret.
func (c Config) redacted() Config {
	if c.Private.EntitySecret != "" {
		c.Private.EntitySecret = redactedSecret
	}
	if c.P2P.Key != "" {
		c.P2P.Key = redactedSecret
	}
	return c
}
