package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The peer API (chainweb-api.md §1.1 and §1.3, the P2P column): what nodes ask one another
// for. The cut (GET to read, PUT to announce a cut: taken only from a known peer, else 401, as
// upstream), the peer list (GET, and PUT to introduce oneself, with a checked host name and
// port), headers (pages of 20, at most 4 branch bounds), payloads, the mempools (insert,
// member, lookup, getPending) and GET /config, the node's sanitised configuration. Requests
// are throttled per client address (429), with upstream's rates by default.
//
// One difference from upstream: the payload batch endpoints answer (with at most
// PeerPayloadBatchLimit payloads) where upstream's peer API always answers 404, so that a node
// catching up fetches payloads a batch at a time instead of one request each, within the
// request rate.

// PeerPayloadBatchLimit bounds a peer's payload batch.
const PeerPayloadBatchLimit = 100

// peerLimits are the peer API's page and bound limits (upstream's).
var peerLimits = listLimits{hashes: 20, entries: 20, bounds: 4}

// PeerNode is the node side of the peer API.
type PeerNode interface {
	// OfferCut hands over a cut a peer announced, and the address ("host:port") of the peer's
	// API to fetch its blocks from. It must not block on the work the cut causes.
	OfferCut(c *ledger.Cut, origin string)
	// PeerInfos lists the known peers as peer infos "[ID@]HOST:PORT" (the id: the fingerprint
	// of the peer's certificate, when known): those this node serves to others.
	PeerInfos() []string
	// KnownPeer reports whether a cut announced from addr is taken.
	KnownPeer(addr string) bool
	// AddPeer takes a peer offered by PUT cut/peer, as a peer info "[ID@]HOST:PORT"; an error
	// is the reason it cannot be a peer (a 400).
	AddPeer(info string) error
	// MempoolInsert adds transactions a peer relays to chain c's mempool; those that fail the
	// checks are dropped.
	MempoolInsert(ctx context.Context, c ledger.ChainID, cmds []*api.Command) error
	// MempoolMember reports which keys chain c's mempool holds as pending.
	MempoolMember(c ledger.ChainID, keys []api.Hash) []bool
	// MempoolLookup returns chain c's pending transactions with these keys (nil where not).
	MempoolLookup(c ledger.ChainID, keys []api.Hash) []*api.Command
	// MempoolPending lists the keys of chain c's pending transactions.
	MempoolPending(c ledger.ChainID) []api.Hash
}

// Throttle sets the peer API's request rates per client address, in requests per second;
// bursts may reach four times the rate. Zero fields take upstream's defaults.
type Throttle struct {
	Global  float64 // every request (50)
	PutPeer float64 // PUT …/cut/peer (11)
	Mempool float64 // any path with "mempool" (20)
	// Loopback limits loopback clients too; by default they are not limited (throttler.allow).
	Loopback bool
}

// PeerConfig configures the peer API.
type PeerConfig struct {
	Node     PeerNode
	Throttle Throttle
	// Config is the body of GET /config (chainweb-mining-and-config.md §4): the node's
	// sanitised configuration as JSON, which the node makes (it knows what is secret). Nil:
	// no /config route.
	Config []byte
	// TLS, when set, makes Serve speak HTTPS with it (PeerServerTLS), as upstream's peer API
	// does; nil serves plain HTTP (tests of the handlers).
	TLS *tls.Config
}

// NewPeerService builds the peer API server. cfg's Cut, Store and Version serve the reads, as
// on the service API; the contract, backup and update routes are not part of it.
func NewPeerService(cfg ServiceConfig, pc PeerConfig) *Service {
	if pc.Node == nil {
		panic("transport: PeerConfig needs a Node")
	}
	cfg.PayloadBatchLimit = PeerPayloadBatchLimit
	s := newService(cfg, peerLimits, func(s *Service) {
		s.peerRoutes(pc.Node)
		if pc.Config != nil {
			s.router.handle(fasthttp.MethodGet, "/config", s.getConfig(pc.Config))
		}
	})
	s.throttle = newThrottler(pc.Throttle)
	s.tls = pc.TLS
	return s
}

func (s *Service) peerRoutes(n PeerNode) {
	r := s.router
	if s.cfg.Cut != nil {
		r.handle(fasthttp.MethodGet, "cut", s.getCut)
	}
	r.handle(fasthttp.MethodPut, "cut", s.putCut(n))
	r.handle(fasthttp.MethodGet, "cut/peer", s.getPeers(n))
	r.handle(fasthttp.MethodPut, "cut/peer", s.putPeer(n))
	r.handle(fasthttp.MethodGet, "chain/{chain}/header", s.getList(listHeaders))
	r.handle(fasthttp.MethodPost, "chain/{chain}/header/branch", s.postBranch(listHeaders))
	r.handle(fasthttp.MethodGet, "chain/{chain}/header/{blockHash}", s.getHeader)
	r.handle(fasthttp.MethodPost, "chain/{chain}/payload/batch", s.postPayloadBatch(false))
	r.handle(fasthttp.MethodPost, "chain/{chain}/payload/outputs/batch", s.postPayloadBatch(true))
	r.handle(fasthttp.MethodGet, "chain/{chain}/payload/{payloadHash}", s.getPayload(false))
	r.handle(fasthttp.MethodGet, "chain/{chain}/payload/{payloadHash}/outputs", s.getPayload(true))
	r.handle(fasthttp.MethodPut, "chain/{chain}/mempool/insert", s.mempoolInsert(n))
	r.handle(fasthttp.MethodPost, "chain/{chain}/mempool/member", s.mempoolMember(n))
	r.handle(fasthttp.MethodPost, "chain/{chain}/mempool/lookup", s.mempoolLookup(n))
	r.handle(fasthttp.MethodPost, "chain/{chain}/mempool/getPending", s.mempoolPending(n))
}

// getConfig serves GET /config, at the root as upstream has it, not under /chainweb/0.0/….
func (s *Service) getConfig(body []byte) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, _ params) {
		if _, ok := acceptEncoding(ctx, offersJSON); !ok {
			return
		}
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, body)
	}
}

// PeerInfo is a peer as the peer API writes it: {"id": ID, "address": {"hostname", "port"}},
// the id the fingerprint of the peer's certificate (PeerIDOf) or null where it is not known.
type PeerInfo struct {
	ID      *string `json:"id"`
	Address struct {
		Hostname string `json:"hostname"`
		Port     uint16 `json:"port"`
	} `json:"address"`
}

// String is the peer's "host:port".
func (p PeerInfo) String() string {
	return net.JoinHostPort(p.Address.Hostname, strconv.Itoa(int(p.Address.Port)))
}

// Text is the peer info as upstream writes it (--known-peer-info): "ID@HOST:PORT", or
// "HOST:PORT" without an id.
func (p PeerInfo) Text() string {
	if p.ID == nil || *p.ID == "" {
		return p.String()
	}
	return *p.ID + "@" + p.String()
}

// ParsePeerInfo reads a peer info "[ID@]HOST:PORT" (chainweb's --known-peer-info): the id, when
// given, must be a certificate fingerprint (CheckPeerID), the address pass ParsePeerAddr.
func ParsePeerInfo(s string) (PeerInfo, error) {
	id, addr, hasID := splitPeerInfo(s)
	if hasID {
		if err := CheckPeerID(id); err != nil {
			return PeerInfo{}, fmt.Errorf("peer info %s: %w", httpkit.Echo([]byte(s)), err)
		}
	}
	p, err := ParsePeerAddr(addr)
	if err != nil {
		if hasID {
			return PeerInfo{}, fmt.Errorf("peer info %s: %w", httpkit.Echo([]byte(s)), err)
		}
		return PeerInfo{}, err
	}
	if hasID {
		p.ID = &id
	}
	return p, nil
}

// ParsePeerAddr makes a PeerInfo from "host:port", checking both as PUT cut/peer does.
func ParsePeerAddr(addr string) (PeerInfo, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return PeerInfo{}, fmt.Errorf("peer address %q: %w", addr, err)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return PeerInfo{}, fmt.Errorf("peer address %q: the port must be a number in 1–65535", addr)
	}
	if err := CheckHostname(host); err != nil {
		return PeerInfo{}, fmt.Errorf("peer address %q: %w", addr, err)
	}
	var p PeerInfo
	p.Address.Hostname, p.Address.Port = host, uint16(n)
	return p, nil
}

// Limits of a peer entry. A peer's address is handed on to every other peer, so one that is
// not a plain host name or IP address (control characters, megabytes of digits) must never
// get in.
const (
	maxHostnameBytes = 253 // RFC 1035's limit on a name (without a final dot)
	maxLabelBytes    = 63
	maxPeerIDBytes   = 128
	// maxPeerInfoBytes bounds a PUT cut/peer body: a well-formed entry with the longest host
	// name and id is under 500 bytes.
	maxPeerInfoBytes = 1024
)

// CheckHostname accepts what upstream's HostAddress parser does (Chainweb/HostAddress.hs): an
// RFC 1123 host name whose last label starts with a letter (so it cannot be mistaken for an
// IPv4 address), at most 253 bytes with labels of at most 63; a dotted-quad IPv4 address; or an
// IPv6 address without brackets or zone.
func CheckHostname(h string) error {
	switch {
	case h == "":
		return errors.New("the host name is empty")
	case len(h) > maxHostnameBytes:
		return fmt.Errorf("the host name is %d bytes long; at most %d are allowed", len(h), maxHostnameBytes)
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == ':') {
			return fmt.Errorf("host %s has a character that is not a letter, digit, hyphen, dot or colon: %q", httpkit.Echo([]byte(h)), c)
		}
	}
	if strings.Contains(h, ":") {
		if a, err := netip.ParseAddr(h); err == nil && a.Is6() && a.Zone() == "" {
			return nil
		}
		return fmt.Errorf("host %s is not an IPv6 address (written without brackets or zone)", httpkit.Echo([]byte(h)))
	}
	if a, err := netip.ParseAddr(h); err == nil && a.Is4() {
		return nil
	}
	labels := strings.Split(strings.TrimSuffix(h, "."), ".")
	for i, l := range labels {
		switch {
		case l == "":
			return fmt.Errorf("host %s has an empty label", httpkit.Echo([]byte(h)))
		case len(l) > maxLabelBytes:
			return fmt.Errorf("host %s has a label of %d bytes; at most %d are allowed", httpkit.Echo([]byte(h)), len(l), maxLabelBytes)
		case l[0] == '-' || l[len(l)-1] == '-':
			return fmt.Errorf("host %s has a label that starts or ends with a hyphen", httpkit.Echo([]byte(h)))
		}
		if i == len(labels)-1 && !('a' <= l[0] && l[0] <= 'z' || 'A' <= l[0] && l[0] <= 'Z') {
			return fmt.Errorf("host %s is neither an IPv4 address nor a host name (whose last label starts with a letter)", httpkit.Echo([]byte(h)))
		}
	}
	return nil
}

// DecodePeerInfo decodes and checks a peer entry {"id": null|string, "address": {"hostname":
// HOST, "port": PORT}}, saying what is wrong with one that does not pass.
func DecodePeerInfo(b []byte) (PeerInfo, error) {
	var raw struct {
		ID      *string `json:"id"`
		Address *struct {
			Hostname *string         `json:"hostname"`
			Port     json.RawMessage `json:"port"`
		} `json:"address"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&raw); err != nil {
		return PeerInfo{}, fmt.Errorf(`a peer is {"id": null, "address": {"hostname": HOST, "port": PORT}}: %v`, err)
	}
	if d.More() {
		return PeerInfo{}, errors.New("a peer is one JSON object; there is more after it")
	}
	if raw.Address == nil || raw.Address.Hostname == nil || len(raw.Address.Port) == 0 || string(raw.Address.Port) == "null" {
		return PeerInfo{}, errors.New(`a peer is {"id": null, "address": {"hostname": HOST, "port": PORT}}: the address, its hostname or its port is missing`)
	}
	if err := CheckHostname(*raw.Address.Hostname); err != nil {
		return PeerInfo{}, err
	}
	// Only digits: no sign, fraction, exponent or quotes.
	port, err := strconv.ParseUint(string(raw.Address.Port), 10, 16)
	if err != nil || port == 0 {
		return PeerInfo{}, fmt.Errorf("port %s is not a number in 1–65535", httpkit.Echo([]byte(raw.Address.Port)))
	}
	if raw.ID != nil {
		// As upstream's PeerId parser: a fingerprint, or the entry is refused.
		id := *raw.ID
		if len(id) > maxPeerIDBytes {
			return PeerInfo{}, fmt.Errorf("the peer id is %d bytes long; a certificate fingerprint has 43", len(id))
		}
		if err := CheckPeerID(id); err != nil {
			return PeerInfo{}, err
		}
	}
	var p PeerInfo
	p.ID = raw.ID
	p.Address.Hostname, p.Address.Port = *raw.Address.Hostname, uint16(port)
	return p, nil
}

// AppendCutWithOrigin writes c's JSON with origin set to the announcing peer's address.
func AppendCutWithOrigin(dst []byte, c *ledger.Cut, origin PeerInfo) []byte {
	start := len(dst)
	dst = c.AppendJSON(dst)
	o, _ := json.Marshal(origin)
	i := bytes.Index(dst[start:], []byte(`"origin":null`))
	if i < 0 {
		return dst
	}
	i += start + len(`"origin":`)
	out := append([]byte{}, dst[:i]...)
	out = append(out, o...)
	return append(out, dst[i+len("null"):]...)
}

func (s *Service) putCut(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, _ params) {
		if !httpkit.RequireJSONBody(ctx) {
			return
		}
		body := ctx.PostBody()
		c, _, err := ledger.DecodeCutJSON(body)
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
			return
		}
		if c.Version.Name != s.cfg.Version.Name {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "the cut is of network "+c.Version.Name+", this node's is "+s.cfg.Version.Name)
			return
		}
		var o struct {
			Origin json.RawMessage `json:"origin"`
		}
		if err := json.Unmarshal(body, &o); err != nil || len(o.Origin) == 0 || string(o.Origin) == "null" {
			// Upstream's text; the origin is the peer API the cut's blocks are fetched from.
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "Cut is missing an origin entry")
			return
		}
		origin, err := DecodePeerInfo(o.Origin)
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "the cut's origin: "+err.Error())
			return
		}
		// As upstream (CutDB/RestAPI/Server.hs, cutPutHandler): a cut is taken only from a peer
		// this node already knows (from its configuration, a peer list, or PUT cut/peer); the
		// origin of a cut is never added as a peer, else anyone could plant addresses that
		// this node then serves to every other peer.
		addr := origin.String()
		if !n.KnownPeer(addr) {
			httpkit.WriteText(ctx, fasthttp.StatusUnauthorized, "Unknown peer")
			return
		}
		// Ours: the origin must be where the announcement comes from. Anyone could otherwise
		// name a known peer as the origin of a forged cut, and this node would ask that peer
		// for blocks it has not got, and hold it to blame.
		if why := originMismatch(origin.Address.Hostname, ctx.RemoteIP()); why != "" {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "the cut's origin "+addr+" "+why)
			return
		}
		n.OfferCut(c, addr)
		httpkit.WriteEmpty(ctx, fasthttp.StatusNoContent)
	}
}

func (s *Service) getPeers(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, _ params) {
		peers := n.PeerInfos()
		items := make([]PeerInfo, 0, len(peers))
		for _, a := range peers {
			if p, err := ParsePeerInfo(a); err == nil {
				items = append(items, p)
			}
		}
		b, _ := json.Marshal(struct {
			Limit int        `json:"limit"`
			Items []PeerInfo `json:"items"`
			Next  *string    `json:"next"`
		}{len(items), items, nil})
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, b)
	}
}

func (s *Service) putPeer(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, _ params) {
		if !httpkit.RequireJSONBody(ctx) {
			return
		}
		body := ctx.PostBody()
		if len(body) > maxPeerInfoBytes {
			httpkit.WriteText(ctx, fasthttp.StatusRequestEntityTooLarge, httpkit.TooLargeText(maxPeerInfoBytes, len(body)))
			return
		}
		p, err := DecodePeerInfo(body)
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
			return
		}
		if err := n.AddPeer(p.Text()); err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
			return
		}
		httpkit.WriteEmpty(ctx, fasthttp.StatusNoContent)
	}
}

// maxMempoolBatch bounds the transactions or keys of one mempool request.
const maxMempoolBatch = 1000

func (s *Service) mempoolInsert(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		if !httpkit.RequireJSONBody(ctx) {
			return
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(ctx.PostBody(), &raw); err != nil || len(raw) > maxMempoolBatch {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "a mempool insert is a JSON array of at most 1000 commands")
			return
		}
		cmds := make([]*api.Command, 0, len(raw))
		for i, r := range raw {
			c, err := api.DecodeCommand(r)
			if err != nil {
				httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "command "+strconv.Itoa(i)+": "+err.Error())
				return
			}
			cmds = append(cmds, c)
		}
		if err := n.MempoolInsert(ctx, p.chain, cmds); err != nil {
			s.internalError(ctx, err)
			return
		}
		httpkit.WriteEmpty(ctx, fasthttp.StatusNoContent)
	}
}

// mempoolKeys decodes a JSON array of request keys.
func mempoolKeys(ctx *fasthttp.RequestCtx) ([]api.Hash, bool) {
	if !httpkit.RequireJSONBody(ctx) {
		return nil, false
	}
	var ss []string
	if err := json.Unmarshal(ctx.PostBody(), &ss); err != nil || len(ss) > maxMempoolBatch {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "a JSON array of at most 1000 request keys")
		return nil, false
	}
	keys := make([]api.Hash, len(ss))
	for i, k := range ss {
		h, err := api.ParseHash(k)
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "request key "+strconv.Itoa(i)+": "+err.Error())
			return nil, false
		}
		keys[i] = h
	}
	return keys, true
}

func (s *Service) mempoolMember(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		keys, ok := mempoolKeys(ctx)
		if !ok {
			return
		}
		b, _ := json.Marshal(n.MempoolMember(p.chain, keys))
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, b)
	}
}

func (s *Service) mempoolLookup(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		keys, ok := mempoolKeys(ctx)
		if !ok {
			return
		}
		found := n.MempoolLookup(p.chain, keys)
		b := []byte{'['}
		for i, c := range found {
			if i > 0 {
				b = append(b, ',')
			}
			if c == nil {
				b = append(b, `{"tag":"Missing"}`...)
				continue
			}
			b = append(b, `{"tag":"Pending","contents":`...)
			b = c.AppendJSON(b)
			b = append(b, '}')
		}
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, append(b, ']'))
	}
}

func (s *Service) mempoolPending(n PeerNode) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		keys := n.MempoolPending(p.chain)
		ss := make([]string, len(keys))
		for i, k := range keys {
			ss[i] = k.String()
		}
		b, _ := json.Marshal(struct {
			Hashes        []string `json:"hashes"`
			HighwaterMark [2]int64 `json:"highwaterMark"`
		}{ss, [2]int64{0, int64(len(ss))}})
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, b)
	}
}

// throttler is a token bucket per client address and request class.
type throttler struct {
	rates    [3]float64 // global, put peer, mempool
	loopback bool       // loopback clients are limited too
	mu       sync.Mutex
	by       map[string]*[3]bucket
	swept    time.Time
	now      func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newThrottler(t Throttle) *throttler {
	def := func(v, d float64) float64 {
		if v <= 0 {
			return d
		}
		return v
	}
	return &throttler{rates: [3]float64{def(t.Global, 50), def(t.PutPeer, 11), def(t.Mempool, 20)}, loopback: t.Loopback,
		by: map[string]*[3]bucket{}, now: time.Now}
}

// allow takes a token from each bucket the request falls in; rt is the route it matched (nil
// for none: then only the global bucket).
//
// Loopback clients are not throttled unless Throttle.Loopback says so: they are processes of
// this machine, which could stop the node outright, and they include the other nodes of a
// network run on one machine (a development network, a test), which all share the one address:
// counted as one client, their announcements and block fetches together ran into the limit and
// the network drifted apart (issue 38).
func (t *throttler) allow(ctx *fasthttp.RequestCtx, rt *route) bool {
	remote := ctx.RemoteIP()
	if remote.IsLoopback() && !t.loopback {
		return true
	}
	ip := remote.String()
	classes := []int{0}
	if rt != nil && rt.pattern == "cut/peer" && ctx.IsPut() {
		classes = append(classes, 1)
	}
	if rt != nil && strings.Contains(rt.pattern, "mempool") {
		classes = append(classes, 2)
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.swept) > time.Minute {
		// Forget addresses idle long enough to have refilled.
		for k, b := range t.by {
			if now.Sub(b[0].at) > time.Minute {
				delete(t.by, k)
			}
		}
		t.swept = now
	}
	bs, ok := t.by[ip]
	if !ok {
		bs = &[3]bucket{}
		for i := range bs {
			bs[i] = bucket{tokens: 4 * t.rates[i], at: now}
		}
		t.by[ip] = bs
	}
	for _, c := range classes {
		b := &bs[c]
		b.tokens = min(4*t.rates[c], b.tokens+now.Sub(b.at).Seconds()*t.rates[c])
		b.at = now
		if b.tokens < 1 {
			return false
		}
	}
	for _, c := range classes {
		bs[c].tokens--
	}
	return true
}

func trimPeerText(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// originMismatch says why a cut announced from the client at remote cannot name host as its
// origin ("" when it can): host must be that address, or a name that resolves to it.
func originMismatch(host string, remote net.IP) string {
	from, ok := netip.AddrFromSlice(remote)
	if from = from.Unmap(); !ok || from.IsUnspecified() {
		return "" // not a TCP connection (an in-process handler): nothing to compare
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Unmap() != from {
			return "is not the address the announcement came from (" + from.String() + ")"
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), originLookupTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "does not resolve: " + err.Error()
	}
	for _, ip := range ips {
		if ip.Unmap() == from {
			return ""
		}
	}
	return "does not resolve to the address the announcement came from (" + from.String() + ")"
}

// originLookupTimeout bounds the name lookup of a cut's origin.
const originLookupTimeout = 2 * time.Second
