package transport

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/store"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// getList serves GET …/chain/{c}/hash, /header and /block: every stored block of the chain,
// orphans included, in ascending (height, raw hash) order, the store's index order
// (chainweb-api.md §2.5).
func (s *Service) getList(k listKind) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		enc, ok := acceptEncoding(ctx, s.listOffers(k))
		if !ok {
			return
		}
		q, perr := parseListQuery(ctx.QueryArgs(), s.limits.pageMax(k))
		if perr != nil {
			perr.Write(ctx)
			return
		}
		pg, release := s.newPager(k, enc, q.limit)
		defer release()

		from := store.Position{Height: q.minHeight}
		skipCursor := false
		if q.hasCursor {
			cur, err := headerOnChain(s.db, p.chain, q.cursor.hash)
			if err != nil {
				s.lookupFailed(ctx, q.cursor.hash, err)
				return
			}
			if cur.Height < q.minHeight {
				pg.write(ctx, contentTypeOf(enc)) // the cursor is below the range: nothing left
				return
			}
			from = store.Position{Height: cur.Height, Hash: cur.Hash}
			skipCursor = !q.cursor.inclusive
		}
		if q.hasMax && !s.clampMaxHeight(ctx, p.chain, &q) {
			return
		}
		err := s.db.ScanChain(p.chain, from, func(h *ledger.Header) bool {
			if q.hasMax && h.Height > q.maxHeight {
				return false
			}
			if skipCursor {
				skipCursor = false
				if h.Hash == q.cursor.hash {
					return true
				}
			}
			return pg.add(h)
		})
		if err == nil {
			err = pg.err
		}
		if err != nil {
			s.internalError(ctx, err)
			return
		}
		pg.write(ctx, contentTypeOf(enc))
	}
}

// postBranch serves POST …/chain/{c}/hash/branch, /header/branch and /block/branch
// (chainweb-api.md §3). Checks run in servant's order: Accept, Content-Type, query, body; then
// the bound limits, the cursor, maxheight and the upper bounds.
func (s *Service) postBranch(k listKind) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		enc, ok := acceptEncoding(ctx, s.listOffers(k))
		if !ok || !httpkit.RequireJSONBody(ctx) {
			return
		}
		q, perr := parseListQuery(ctx.QueryArgs(), s.limits.pageMax(k))
		if perr != nil {
			perr.Write(ctx)
			return
		}
		bounds, err := parseBranchBody(ctx.PostBody())
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
			return
		}
		switch {
		case len(bounds.upper) > s.limits.bounds:
			httpkit.WriteJSON(ctx, fasthttp.StatusBadRequest, branchLimitBody("upper", s.limits.bounds))
			return
		case len(bounds.lower) > s.limits.bounds:
			httpkit.WriteJSON(ctx, fasthttp.StatusBadRequest, branchLimitBody("lower", s.limits.bounds))
			return
		}
		pg, release := s.newPager(k, enc, q.limit)
		defer release()

		var cur *ledger.Header
		if q.hasCursor {
			if cur, err = headerOnChain(s.db, p.chain, q.cursor.hash); err != nil {
				s.lookupFailed(ctx, q.cursor.hash, err)
				return
			}
		}
		// No check of maxheight against the chain's highest block here: upstream's quirk below
		// already answers a maxheight above every upper bound with an empty branch.
		uppers := make([]*ledger.Header, 0, len(bounds.upper))
		for _, h := range bounds.upper {
			u, err := headerOnChain(s.db, p.chain, h)
			if err != nil {
				s.lookupFailed(ctx, h, err)
				return
			}
			if q.hasMax {
				// Upstream's quirk, kept: an upper bound is replaced by its ancestor at exactly
				// maxheight, and one below maxheight contributes nothing.
				if u, err = ancestorAt(s.db, u, q.maxHeight); err != nil {
					s.internalError(ctx, err)
					return
				}
				if u == nil {
					continue
				}
			}
			uppers = append(uppers, u)
		}
		lowers := make([]*ledger.Header, 0, len(bounds.lower))
		for _, h := range bounds.lower {
			l, err := headerOnChain(s.db, p.chain, h)
			switch {
			case err == nil:
				lowers = append(lowers, l)
			case !isNotFound(err):
				s.internalError(ctx, err)
				return
			} // unknown lower bounds are ignored, as upstream does
		}
		if cur != nil && cur.Height < q.minHeight {
			pg.write(ctx, contentTypeOf(enc))
			return
		}
		err = walkBranch(s.db, uppers, lowers, q.minHeight, func(h *ledger.Header) bool {
			if cur != nil {
				// Skip to the cursor's place in the branch order. The branch is recomputed for
				// every page, as upstream does; a cursor that is not in the branch just marks the
				// position where it would be.
				if h.Height > cur.Height || (h.Height == cur.Height && bytes.Compare(h.Hash[:], cur.Hash[:]) < 0) {
					return true
				}
				if h.Hash == cur.Hash && !q.cursor.inclusive {
					return true
				}
				cur = nil
			}
			return pg.add(h)
		})
		if err == nil {
			err = pg.err
		}
		if err != nil {
			s.internalError(ctx, err)
			return
		}
		pg.write(ctx, contentTypeOf(enc))
	}
}

// newPager returns a pager with a pooled item buffer and the function that gives it back.
func (s *Service) newPager(k listKind, enc encoding, limit int) (*pager, func()) {
	buf := getBuf()
	pg := &pager{limit: limit, items: *buf, encode: s.encoder(k, enc)}
	return pg, func() { putBuf(buf, pg.items) }
}

// clampMaxHeight lowers a maxheight above the chain's highest block to that block's height:
// the list stops at the tip, as upstream's does (DECISIONS.md; @kadena/client-utils asks for
// maxheight = tip + 1). A range that holds no height with a block at all, because the chain has
// none or minheight is above its highest block, stays a 404 with the not-found body naming the
// maxheight. false means the 404 (or a 500) was sent.
func (s *Service) clampMaxHeight(ctx *fasthttp.RequestCtx, c ledger.ChainID, q *listQuery) bool {
	top, ok, err := s.db.MaxHeight(c)
	if err != nil {
		s.internalError(ctx, err)
		return false
	}
	key := strconv.FormatUint(q.maxHeight, 10)
	switch {
	case !ok:
		notFoundKey(ctx, key, fmt.Sprintf("no block in the range: chain %d has no blocks", c))
		return false
	case q.minHeight > top:
		notFoundKey(ctx, key, fmt.Sprintf("no block in the range: minheight %d is above the highest block of chain %d, at height %d", q.minHeight, c, top))
		return false
	}
	q.maxHeight = min(q.maxHeight, top)
	return true
}

// lookupFailed answers a failed lookup of key: 404 with the not-found body when it is unknown,
// 500 when the store itself failed.
func (s *Service) lookupFailed(ctx *fasthttp.RequestCtx, key ledger.Hash, err error) {
	if isNotFound(err) {
		keyNotFound(ctx, key.String())
		return
	}
	s.internalError(ctx, err)
}
