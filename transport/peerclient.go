package transport

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors/peersync"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/pact/api"
)

// PeerClient calls another node's peer API. Everything it returns was checked as far as it can
// be without the node's state: headers decode and their hashes match, payloads match their
// hashes. Whether they are valid blocks is the chain actors' and executors' business.
//
// A peer is untrusted: every request has a deadline, an answer is read only up to a size that
// suits its kind (a cut, a page of headers, a batch of payloads) before anything decodes it, a
// 429 is retried a few times only, and a branch is followed for a bounded number of pages. Its
// failures are classified (peersync.ErrPeerTimeout, ErrPeerTooLarge, ErrPeerAnswer,
// ErrPeerUnreachable, ErrPeerIdentity), so that peer sync can score the peer.
//
// The peer API is HTTPS (peercert.go). A client made with an id (PeerClientConfig.ID) takes
// only the certificate whose fingerprint it is: any other ends the handshake, before a byte of
// a request is sent. Without one, any certificate is taken, as chainweb-node's call-back of a
// new peer does, and its fingerprint is the peer's id (ID). Connections are kept and reused,
// and TLS sessions resumed, so that a peer costs a handshake only now and then.
type PeerClient struct {
	addr string // host:port
	base string // https://host:port/chainweb/0.0/<network>
	// want is the id the peer's certificate must have ("" takes any); seen the id of the
	// certificate of the last handshake; mismatch the id of the last certificate refused.
	want     string
	seen     atomic.Pointer[string]
	mismatch atomic.Pointer[string]
	version  *ledger.Version
	small    *fasthttp.Client // cuts, peer lists, announcements, mempool relay
	pages    *fasthttp.Client // header pages
	bulk     *fasthttp.Client // payload batches
	timeout  time.Duration    // of a request to small and pages; bulkTimeout of one to bulk
	// bulkTimeout bounds a payload batch, which may be large.
	bulkTimeout time.Duration
}

// PeerClientConfig configures a PeerClient.
type PeerClientConfig struct {
	// Timeout bounds each request (DefaultPeerTimeout if zero).
	Timeout time.Duration
	// Dial connects to the peer (AddressPolicy.Dialer); nil: fasthttp's own dialer.
	Dial func(addr string) (net.Conn, error)
	// ID, when set, is the peer id (the fingerprint of its certificate) the peer must prove;
	// empty takes any certificate.
	ID string
}

// Limits of a peer's answers, checked while reading, before decoding.
const (
	// DefaultPeerTimeout bounds one request to a peer; a payload batch gets
	// bulkTimeoutFactor times as long. A peer that offered a cut and then does not answer
	// holds the sync for that long before the next offer is taken.
	DefaultPeerTimeout = 5 * time.Second
	bulkTimeoutFactor  = 6
	maxSmallAnswer     = 1 << 20   // a cut, a peer list: a few KB
	maxPageAnswer      = 8 << 20   // a page of 20 headers: a few KB
	maxBulkAnswer      = 128 << 20 // up to 100 payloads with outputs (a batch that passes is halved)
	// maxBusyRetries is how often a 429 is waited out before the request fails.
	maxBusyRetries = 5
	// maxBranchHeaders bounds the headers one branch query follows when no height range
	// bounds it: a peer answering page after page forever must not hold the sync.
	maxBranchHeaders = 1 << 20
)

// NewPeerClient makes a client of the peer API at addr ("host:port").
func NewPeerClient(addr string, v *ledger.Version, cfg PeerClientConfig) *PeerClient {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultPeerTimeout
	}
	p := &PeerClient{addr: addr, base: "https://" + addr + "/chainweb/0.0/" + v.Name, version: v, want: cfg.ID,
		timeout: cfg.Timeout, bulkTimeout: bulkTimeoutFactor * cfg.Timeout}
	// One TLS configuration for the three clients: they share the session cache, so that a
	// connection of one resumes the session another negotiated.
	tc := &tls.Config{
		// The certificate is self-signed: it is checked by its fingerprint (VerifyConnection),
		// not by a chain to an authority.
		InsecureSkipVerify: true, //nolint:gosec
		MinVersion:         tls.VersionTLS12,
		ClientSessionCache: tls.NewLRUClientSessionCache(4),
		VerifyConnection:   p.verifyConnection,
	}
	client := func(max int) *fasthttp.Client {
		return &fasthttp.Client{NoDefaultUserAgentHeader: true, MaxResponseBodySize: max, Dial: cfg.Dial,
			ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, TLSConfig: tc}
	}
	p.small, p.pages, p.bulk = client(maxSmallAnswer), client(maxPageAnswer), client(maxBulkAnswer)
	p.bulk.ReadTimeout, p.bulk.WriteTimeout = p.bulkTimeout, p.bulkTimeout
	return p
}

// verifyConnection checks the peer's certificate at each handshake (a resumed session's too):
// its fingerprint must be the id the client wants, if it wants one.
func (p *PeerClient) verifyConnection(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return fmt.Errorf("%w: peer %s presented no certificate", peersync.ErrPeerIdentity, p.addr)
	}
	id := PeerIDOf(cs.PeerCertificates[0].Raw)
	if p.want != "" && id != p.want {
		p.mismatch.Store(&id)
		return &PeerIdentityError{Addr: p.addr, Want: p.want, Got: id}
	}
	p.seen.Store(&id)
	return nil
}

// PeerIdentityError is a handshake refused because the peer's certificate is not the one its
// id names.
type PeerIdentityError struct {
	Addr, Want, Got string
}

func (e *PeerIdentityError) Error() string {
	return fmt.Sprintf("peer %s presented a certificate of fingerprint %s, not the peer id %s it is known by", e.Addr, e.Got, e.Want)
}

func (e *PeerIdentityError) Unwrap() error { return peersync.ErrPeerIdentity }

// Addr is the peer's address.
func (p *PeerClient) Addr() string { return p.addr }

// ID is the peer's id: the one it must prove, or else the fingerprint of the certificate it
// presented last ("" before the first handshake).
func (p *PeerClient) ID() string {
	if p.want != "" {
		return p.want
	}
	if id := p.seen.Load(); id != nil {
		return *id
	}
	return ""
}

// do sends a request and returns the body of a 2xx answer. A 429 (the peer's rate limit) is
// waited out and retried, with a growing pause, at most maxBusyRetries times: a node catching
// up asks faster than a peer answers one client and must pace itself, but a peer that answers
// nothing else is not waited on forever.
func (p *PeerClient) do(ctx context.Context, c *fasthttp.Client, method, path string, body []byte) ([]byte, error) {
	pause := 100 * time.Millisecond
	for try := 0; ; try++ {
		b, retry, err := p.once(ctx, c, method, path, body)
		if !retry || try == maxBusyRetries {
			return b, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

func (p *PeerClient) once(ctx context.Context, c *fasthttp.Client, method, path string, body []byte) ([]byte, bool, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(p.base + path)
	req.Header.SetMethod(method)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	timeout := p.timeout
	if c == p.bulk {
		timeout = p.bulkTimeout
	}
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	if timeout <= 0 {
		return nil, false, fmt.Errorf("%w: peer %s: %v", peersync.ErrPeerTimeout, p.addr, ctx.Err())
	}
	if err := c.DoTimeout(req, resp, timeout); err != nil {
		var ie *PeerIdentityError
		if errors.As(err, &ie) {
			return nil, false, ie
		}
		if got := p.mismatch.Swap(nil); got != nil {
			// The handshake was refused for the certificate, whatever fasthttp made of it.
			return nil, false, &PeerIdentityError{Addr: p.addr, Want: p.want, Got: *got}
		}
		return nil, false, fmt.Errorf("%w: peer %s: %s %s: %v", classifyPeerErr(err), p.addr, method, path, err)
	}
	if code := resp.StatusCode(); code < 200 || code > 299 {
		err := fmt.Errorf("%w: peer %s: %s %s: %d %s", peersync.ErrPeerAnswer, p.addr, method, path, code, trimPeerText(resp.Body()))
		return nil, code == fasthttp.StatusTooManyRequests, err
	}
	return append([]byte(nil), resp.Body()...), false, nil
}

// classifyPeerErr is the kind of a request's failure.
func classifyPeerErr(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return peersync.ErrPeerTooLarge
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return peersync.ErrPeerTimeout
	}
	return peersync.ErrPeerUnreachable
}

// Cut reads the peer's cut.
func (p *PeerClient) Cut(ctx context.Context) (*ledger.Cut, error) {
	b, err := p.do(ctx, p.small, fasthttp.MethodGet, "/cut", nil)
	if err != nil {
		return nil, err
	}
	c, _, err := ledger.DecodeCutJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%w: peer %s: %v", peersync.ErrPeerAnswer, p.addr, err)
	}
	return c, nil
}

// PutCut announces cut c, whose blocks can be fetched from origin ("[ID@]HOST:PORT": this
// node's peer info).
func (p *PeerClient) PutCut(ctx context.Context, c *ledger.Cut, origin string) error {
	o, err := ParsePeerInfo(origin)
	if err != nil {
		return err
	}
	// Once: an announcement the peer's rate limit refused is stale by the time it could be
	// sent again, and the next cut change sends a newer one.
	_, _, err = p.once(ctx, p.small, fasthttp.MethodPut, "/cut", AppendCutWithOrigin(nil, c, o))
	return err
}

// Peers reads the peer's list of peers, as peer infos "[ID@]HOST:PORT".
func (p *PeerClient) Peers(ctx context.Context) ([]string, error) {
	b, err := p.do(ctx, p.small, fasthttp.MethodGet, "/cut/peer", nil)
	if err != nil {
		return nil, err
	}
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, fmt.Errorf("%w: peer %s: peer list: %v", peersync.ErrPeerAnswer, p.addr, err)
	}
	// Entries are checked as PUT cut/peer checks them: a peer's list is untrusted input, and
	// what this node learns from it, it serves to others.
	out := make([]string, 0, len(page.Items))
	for _, raw := range page.Items {
		if it, err := DecodePeerInfo(raw); err == nil {
			out = append(out, it.Text())
		}
	}
	return out, nil
}

// AddPeer introduces self ("[ID@]HOST:PORT": this node's peer info) to the peer.
func (p *PeerClient) AddPeer(ctx context.Context, self string) error {
	info, err := ParsePeerInfo(self)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(info)
	_, err = p.do(ctx, p.small, fasthttp.MethodPut, "/cut/peer", b)
	return err
}

// Branch returns the headers of chain c that are ancestors of an upper bound and of no lower
// bound (descending by height, as the peer pages them), following every page.
func (p *PeerClient) Branch(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash) ([]*ledger.Header, error) {
	return p.BranchRange(ctx, c, lower, upper, 0, ^uint64(0))
}

// BranchRange is Branch limited to the heights minHeight to maxHeight (the branch query's
// minheight and maxheight).
func (p *PeerClient) BranchRange(ctx context.Context, c ledger.ChainID, lower, upper []ledger.Hash, minHeight, maxHeight uint64) ([]*ledger.Header, error) {
	body, _ := json.Marshal(struct {
		Lower []ledger.Hash `json:"lower"`
		Upper []ledger.Hash `json:"upper"`
	}{lower, upper})
	var query []string
	if minHeight > 0 {
		query = append(query, "minheight="+strconv.FormatUint(minHeight, 10))
	}
	if maxHeight != ^uint64(0) {
		query = append(query, "maxheight="+strconv.FormatUint(maxHeight, 10))
	}
	// A branch holds at most a header per height of its range; a peer that pages on past that
	// (or forever) is lying.
	most := uint64(maxBranchHeaders)
	if maxHeight != ^uint64(0) && maxHeight >= minHeight {
		most = min(most, maxHeight-minHeight+1)
	}
	var out []*ledger.Header
	next := ""
	for {
		path := "/chain/" + strconv.FormatUint(uint64(c), 10) + "/header/branch"
		q := query
		if next != "" {
			q = append(q[:len(q):len(q)], "next="+url.QueryEscape(next))
		}
		if len(q) > 0 {
			path += "?" + strings.Join(q, "&")
		}
		b, err := p.do(ctx, p.pages, fasthttp.MethodPost, path, body)
		if err != nil {
			return nil, err
		}
		var page struct {
			Items []string `json:"items"`
			Next  *string  `json:"next"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return nil, fmt.Errorf("%w: peer %s: branch page: %v", peersync.ErrPeerAnswer, p.addr, err)
		}
		for _, it := range page.Items {
			h, err := ledger.DecodeHeaderB64(it)
			if err != nil {
				return nil, fmt.Errorf("%w: peer %s: header: %v", peersync.ErrPeerAnswer, p.addr, err)
			}
			if h.ChainID != c {
				return nil, fmt.Errorf("%w: peer %s: a header of chain %d in chain %d's branch", peersync.ErrPeerAnswer, p.addr, h.ChainID, c)
			}
			out = append(out, h)
		}
		if uint64(len(out)) > most {
			return nil, fmt.Errorf("%w: peer %s: chain %d's branch goes on past %d headers", peersync.ErrPeerAnswer, p.addr, c, most)
		}
		if page.Next == nil || len(page.Items) == 0 {
			return out, nil
		}
		if *page.Next == next {
			return nil, fmt.Errorf("%w: peer %s: chain %d's branch pages back to the same page", peersync.ErrPeerAnswer, p.addr, c)
		}
		next = *page.Next
	}
}

// Payloads fetches payloads with outputs of chain c (at most PeerPayloadBatchLimit); those the
// peer lacks are missing from the result, and each one matches its hashes.
func (p *PeerClient) Payloads(ctx context.Context, c ledger.ChainID, hashes []ledger.Hash) (map[ledger.Hash]*ledger.PayloadWithOutputs, error) {
	body, _ := json.Marshal(hashes)
	b, err := p.do(ctx, p.bulk, fasthttp.MethodPost, "/chain/"+strconv.FormatUint(uint64(c), 10)+"/payload/outputs/batch", body)
	if err != nil {
		return nil, err
	}
	var ps []*ledger.PayloadWithOutputs
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, fmt.Errorf("%w: peer %s: payloads: %v", peersync.ErrPeerAnswer, p.addr, err)
	}
	out := make(map[ledger.Hash]*ledger.PayloadWithOutputs, len(ps))
	for _, x := range ps {
		if x == nil {
			continue
		}
		if err := x.Verify(); err != nil {
			return nil, fmt.Errorf("%w: peer %s: payload %s: %v", peersync.ErrPeerAnswer, p.addr, x.PayloadHash, err)
		}
		out[x.PayloadHash] = x
	}
	return out, nil
}

// InsertTxs relays transactions to the peer's mempool of chain c.
func (p *PeerClient) InsertTxs(ctx context.Context, c ledger.ChainID, cmds []*api.Command) error {
	b := []byte{'['}
	for i, cmd := range cmds {
		if i > 0 {
			b = append(b, ',')
		}
		b = cmd.AppendJSON(b)
	}
	_, err := p.do(ctx, p.small, fasthttp.MethodPut, "/chain/"+strconv.FormatUint(uint64(c), 10)+"/mempool/insert", append(b, ']'))
	return err
}
