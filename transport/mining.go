package transport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/actors"
	"github.com/ledgernode/ledger-node/actors/mining"
	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The mining API for external miners (chainweb-mining-and-config.md §1), over an
// mining.Coordinator:
//
//	GET  …/mining/work     JSON miner body → 4-byte chain id, 32-byte target, header without
//	                       its hash (nonce 0), all little-endian: 322 bytes on degree-3 graphs
//	POST …/mining/solved   the solved header without its hash (286 bytes) → 200, empty
//	GET  …/mining/updates  4-byte chain id body → text/event-stream of `event:New Cut` and
//	                       `event:Refreshed Block`
//
// Status codes and error texts are upstream's; where upstream answers 500 or hangs (a malformed
// updates body, no minable chain for ever), this API answers a 4xx or 503 saying why.

// WorkPrefixSize is the part of a work response before the header: chain id and target.
const WorkPrefixSize = 4 + 32

// AppendWork appends the work bytes of h (a header whose nonce the miner is to find): its chain
// id (Word32 LE), its target (256-bit LE), then its binary form without the block hash.
func AppendWork(dst []byte, h *ledger.Header) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.ChainID))
	var t [32]byte
	h.Target.PutLE(t[:])
	dst = append(dst, t[:]...)
	b := h.AppendBinary(dst)
	return b[:len(b)-ledger.HashSize]
}

// DecodeSolved decodes a solved header as POST …/mining/solved carries it: a binary header
// without its block hash, consumed exactly. The hash is left zero; the caller seals it.
func DecodeSolved(b []byte) (*ledger.Header, error) {
	const countAt = 48 // the adjacent count follows the fork state, creation time and parent
	if len(b) < countAt+2 {
		return nil, fmt.Errorf("not enough bytes: %d, a header without hash has at least %d", len(b), ledger.SizeForDegree(0)-ledger.HashSize)
	}
	n := int(binary.LittleEndian.Uint16(b[countAt:]))
	if n > ledger.MaxAdjacents {
		return nil, fmt.Errorf("%d adjacent hashes (at most %d)", n, ledger.MaxAdjacents)
	}
	want := ledger.SizeForDegree(n) - ledger.HashSize
	switch {
	case len(b) < want:
		return nil, fmt.Errorf("not enough bytes: %d, a header without hash with %d adjacent hashes has %d", len(b), n, want)
	case len(b) > want:
		return nil, fmt.Errorf("pending bytes in input: %d after the %d of a header without hash", len(b)-want, want)
	}
	full := make([]byte, want+ledger.HashSize)
	copy(full, b)
	h, err := ledger.DecodeHeader(full)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// DecodeMiner decodes the miner of a work request: a JSON object with the string "account",
// the array of strings "public-keys" and the string "predicate", all required (upstream's
// FromJSON Miner). The errors read like aeson's, which servant sends in its 400.
func DecodeMiner(b []byte) (mining.MinerInfo, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return mining.MinerInfo{}, fmt.Errorf("Error in $: %v", err)
	}
	if raw == nil {
		return mining.MinerInfo{}, errors.New("Error in $: expected Object, but encountered Null")
	}
	var m mining.MinerInfo
	for _, f := range []struct {
		key string
		to  any
	}{{"account", &m.Account}, {"public-keys", &m.PublicKeys}, {"predicate", &m.Predicate}} {
		v, ok := raw[f.key]
		if !ok {
			return mining.MinerInfo{}, fmt.Errorf("Error in $: key %q not found", f.key)
		}
		if bytes.Equal(v, []byte("null")) {
			return mining.MinerInfo{}, fmt.Errorf("Error in $[%q]: expected a value, but encountered Null", f.key)
		}
		if err := json.Unmarshal(v, f.to); err != nil {
			return mining.MinerInfo{}, fmt.Errorf("Error in $[%q]: %v", f.key, err)
		}
	}
	return m, nil
}

// DecodeChainBytes decodes the body of GET …/mining/updates: exactly 4 bytes, a Word32 LE chain
// id.
func DecodeChainBytes(b []byte) (ledger.ChainID, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("the body must be a chain id as 4 little-endian bytes, got %d bytes", len(b))
	}
	return ledger.ChainID(binary.LittleEndian.Uint32(b)), nil
}

// miningRoutes registers the mining API.
func (s *Service) miningRoutes() {
	s.router.handle(fasthttp.MethodGet, "mining/work", s.getWork)
	s.router.handle(fasthttp.MethodPost, "mining/solved", s.postSolved)
	s.router.handle(fasthttp.MethodGet, "mining/updates", s.getMiningUpdates)
}

func (s *Service) getWork(ctx *fasthttp.RequestCtx, _ params) {
	if !httpkit.RequireJSONBody(ctx) {
		return
	}
	var suggest *ledger.ChainID
	if q := ctx.QueryArgs().Peek("chain"); q != nil {
		c, err := strconv.ParseUint(string(q), 10, 32)
		if err != nil {
			httpkit.BadQueryParam(ctx, "chain", "not a chain id: "+httpkit.EchoText(q, true))
			return
		}
		id := ledger.ChainID(c)
		suggest = &id // an unknown chain is only a suggestion that cannot be followed, as upstream
	}
	m, err := DecodeMiner(ctx.Request.Body())
	if err != nil {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
		return
	}
	w, err := s.cfg.Mining.Work(m, suggest)
	var unauthorized *mining.UnauthorizedError
	switch {
	case err == nil:
	case errors.As(err, &unauthorized):
		httpkit.WriteText(ctx, fasthttp.StatusForbidden, err.Error())
		return
	case errors.Is(err, mining.ErrTooManyWorkRequests):
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, err.Error())
		return
	case errors.Is(err, mining.ErrNoWork), errors.Is(err, mining.ErrCoordinatorStopped):
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, "No work: "+err.Error())
		return
	default:
		s.internalError(ctx, err)
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.Response.Header.SetContentTypeBytes(ctOctet)
	ctx.Response.SetBody(AppendWork(make([]byte, 0, WorkPrefixSize+w.Header.Size()), w.Header))
}

func (s *Service) postSolved(ctx *fasthttp.RequestCtx, _ params) {
	h, err := DecodeSolved(ctx.Request.Body())
	if err != nil {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "Decoding error: "+err.Error())
		return
	}
	_, err = s.cfg.Mining.Solve(h)
	var invalid *mining.InvalidSolvedError
	switch {
	case err == nil:
		// 200 with an empty body (servant's NoContent under Post), orphans included.
		ctx.SetStatusCode(fasthttp.StatusOK)
		ctx.Response.ResetBody()
		ctx.Response.Header.SetContentLength(0)
	case errors.Is(err, mining.ErrNoAssociatedPayload):
		httpkit.WriteText(ctx, fasthttp.StatusNotFound, err.Error())
	case errors.As(err, &invalid):
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
	case errors.Is(err, actors.ErrStopped), errors.Is(err, actors.ErrWriteFailed):
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, "The block cannot be stored now: "+err.Error())
	default:
		s.internalError(ctx, err)
	}
}

var (
	eventNewCut         = []byte("event:" + mining.EventNewCut + "\n\n")
	eventRefreshedBlock = []byte("event:" + mining.EventRefreshedBlock + "\n\n")
)

func (s *Service) getMiningUpdates(ctx *fasthttp.RequestCtx, _ params) {
	c, err := DecodeChainBytes(ctx.Request.Body())
	if err != nil {
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, "Decoding error: "+err.Error())
		return
	}
	if !s.cfg.Version.HasChain(c) {
		// Upstream waits for work that never comes, holding a stream slot.
		httpkit.WriteText(ctx, fasthttp.StatusBadRequest, fmt.Sprintf("Decoding error: chain %d is not a chain of %s", c, s.cfg.Version.Name))
		return
	}
	u, err := s.cfg.Mining.Updates(c)
	if err != nil {
		// Upstream's 503 carries no Content-Type.
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.Response.SetBodyString(err.Error())
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.Response.Header.SetContentTypeBytes(ctEventStream)
	ctx.Response.Header.SetCanonical(hdrCacheControl, valNoCache)
	ctx.Response.Header.SetCanonical(hdrAccelBuffering, valNo)
	ctx.Response.ImmediateHeaderFlush = true
	ctx.SetConnectionClose()
	done := ctx.Done() // taken here: ctx is recycled once the handler returns
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer u.Close()
		// Not covered by the handler's panic guard; a panic here would take the node down.
		defer func() {
			if r := recover(); r != nil {
				s.internalErrors.Add(1)
				s.log.Error("panic in mining update stream", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}()
		for {
			e, ok := u.Next(done)
			if !ok {
				return
			}
			b := eventNewCut
			if e == mining.EventRefreshedBlock {
				b = eventRefreshedBlock
			}
			if _, err := w.Write(b); err != nil || w.Flush() != nil {
				return // the client is gone
			}
		}
	})
}
