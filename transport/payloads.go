package transport

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/ledger"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// errBatchBody is upstream's 400 text for a batch body of any other shape.
var errBatchBody = errors.New("Invalid payload batch body")

// getPayload serves GET …/chain/{c}/payload/{payloadHash} and, with outputs set,
// …/payload/{payloadHash}/outputs. The optional height only speeds up lookups upstream; the
// store finds payloads by hash alone, so it is validated and otherwise unused. Payloads are not
// per chain in the store (the genesis payloads of many chains are one payload), so any chain of
// the version finds them.
func (s *Service) getPayload(outputs bool) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		if _, ok := acceptEncoding(ctx, offersJSON); !ok {
			return
		}
		if _, _, perr := httpkit.OptUint(ctx.QueryArgs(), "height"); perr != nil {
			perr.Write(ctx)
			return
		}
		body, err := s.payloadJSON(nil, p.hash, outputs)
		if err != nil {
			s.lookupFailed(ctx, p.hash, err)
			return
		}
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, body)
	}
}

// payloadJSON appends the JSON of payload h, with or without outputs.
func (s *Service) payloadJSON(dst []byte, h ledger.Hash, outputs bool) ([]byte, error) {
	var (
		j   []byte
		err error
	)
	if outputs {
		var p *ledger.PayloadWithOutputs
		if p, err = s.db.PayloadWithOutputs(h); err == nil {
			j, err = p.MarshalJSON()
		}
	} else {
		var p *ledger.PayloadData
		if p, err = s.db.Payload(h); err == nil {
			j, err = p.MarshalJSON()
		}
	}
	if err != nil {
		return dst, err
	}
	return append(dst, j...), nil
}

// postPayloadBatch serves POST …/payload/batch and …/payload/outputs/batch: the payloads found,
// in request order, unknown ones left out, 200 [] when none is found (DECISIONS.md).
func (s *Service) postPayloadBatch(outputs bool) handlerFunc {
	return func(ctx *fasthttp.RequestCtx, p params) {
		if _, ok := acceptEncoding(ctx, offersJSON); !ok || !httpkit.RequireJSONBody(ctx) {
			return
		}
		hashes, err := parsePayloadBatch(ctx.PostBody(), s.cfg.PayloadBatchLimit)
		if err != nil {
			httpkit.WriteText(ctx, fasthttp.StatusBadRequest, err.Error())
			return
		}
		buf := getBuf()
		out := append((*buf)[:0], '[')
		n := 0
		for _, h := range hashes {
			mark := len(out)
			if n > 0 {
				out = append(out, ',')
			}
			out, err = s.payloadJSON(out, h, outputs)
			if err != nil {
				out = out[:mark]
				if isNotFound(err) {
					continue
				}
				putBuf(buf, out)
				s.internalError(ctx, err)
				return
			}
			n++
		}
		out = append(out, ']')
		httpkit.WriteJSON(ctx, fasthttp.StatusOK, out)
		putBuf(buf, out)
	}
}

// parsePayloadBatch decodes a batch body: a bare JSON array of payload hashes (the legacy form)
// or {"hashes": [...], "heights": [...]}. With heights the two lists are zipped as upstream
// zips them, so the longer one is cut to the shorter; without heights every hash counts (the
// interface leaves open whether heights are required, and they only speed up lookups).
// Duplicates are dropped and the list is cut to limit entries. Any other shape is
// errBatchBody.
func parsePayloadBatch(body []byte, limit int) ([]ledger.Hash, error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	var hashes []ledger.Hash
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(body, &hashes); err != nil {
			return nil, errBatchBody
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		var obj struct {
			Hashes  *[]ledger.Hash `json:"hashes"`
			Heights *[]uint64      `json:"heights"`
		}
		if err := json.Unmarshal(body, &obj); err != nil || obj.Hashes == nil {
			return nil, errBatchBody
		}
		hashes = *obj.Hashes
		if obj.Heights != nil && len(*obj.Heights) < len(hashes) {
			hashes = hashes[:len(*obj.Heights)]
		}
	default:
		return nil, errBatchBody
	}
	if len(hashes) > limit {
		hashes = hashes[:limit]
	}
	return dedupe(hashes), nil
}
