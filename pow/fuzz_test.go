package pow

import (
	"bytes"
	"testing"

	"github.com/ledgernode/ledger-node/ledger"
)

// FuzzValidate feeds arbitrary header bytes through the decoder into every validation entry point,
// against the real parent and adjacent parents of the mainnet header at 6,321,600, and uses the
// decoded header as a (bogus) parent for the adjustment functions. Nothing may panic, every
// failure must be a ValidationError, and only the real header may validate.
func FuzzValidate(f *testing.F) {
	ts := loadTriples(f)
	tr := tripleAt(f, ts, 6321600)
	for _, x := range ts {
		f.Add(x.hBytes)
	}
	var g genesisFile
	loadJSON(f, "genesis-development.json", &g)
	for _, r := range g.Headers[:3] {
		_, raw := r.decode(f)
		f.Add(raw)
	}
	f.Add(make([]byte, ledger.HeaderSize))
	lax := noPow(ledger.Mainnet01)

	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ledger.DecodeHeader(b)
		if err != nil {
			return
		}
		versions := []*ledger.Version{ledger.Mainnet01, lax}
		if v, ok := ledger.VersionByCode(h.Version); ok {
			versions = append(versions, v, noPow(v))
		}
		for _, v := range versions {
			errs := []error{
				Validate(v, h, tr.p, tr.adj, farFuture),
				Validate(v, h, h, []*ledger.Header{h, tr.adj[0], tr.p}, h.CreationTime),
				ValidateIntrinsic(v, h, 0),
				ValidateChainStep(v, h, h),
				ValidateWebStep(v, h, tr.p, tr.adj),
				// The fuzzed header as a parent and as adjacent parent of the real header.
				ValidateChainStep(v, tr.h, h),
				ValidateWebStep(v, tr.h, tr.p, []*ledger.Header{h, h, h}),
			}
			for _, err := range errs {
				if err != nil && RuleOf(err) == "" {
					t.Fatalf("failure without a rule: %v", err)
				}
			}
			if errs[0] == nil && v == ledger.Mainnet01 && !bytes.Equal(b, tr.hBytes) {
				t.Fatalf("a header other than the real one validated: %x", b)
			}
			_, _ = NextTarget(v, h, []*ledger.Header{h, tr.p}, h.CreationTime)
			_ = NextEpochStart(v, h, h.CreationTime)
			_ = NextForkState(h, []*ledger.Header{h}, 1)
			_, _ = NewHeader(v, h, tr.adj, ledger.Hash{}, h.CreationTime, h.Nonce, 0)
			_, _ = Difficulty(h.Target)
			_ = PowHash(h)
		}
	})
}
