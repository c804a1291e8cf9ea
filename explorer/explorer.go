package explorer

import (
	"embed"
	"encoding/json"
)

//go:embed static
var static embed.FS

// File returns an embedded file of the page by name (index.html, app.js, style.css) and its
// media type; false for any other name.
func File(name string) (body []byte, contentType string, ok bool) {
	types := map[string]string{
		"index.html": "text/html; charset=utf-8",
		"app.js":     "text/javascript; charset=utf-8",
		"style.css":  "text/css; charset=utf-8",
	}
	ct, known := types[name]
	if !known {
		return nil, "", false
	}
	b, err := static.ReadFile("static/" + name)
	if err != nil { // every name above is embedded; a build without one fails TestFilesEmbedded
		return nil, "", false
	}
	return b, ct, true
}

// Status is what the page shows beyond the public API: how the node mines, its mempools and
// its peers.
type Status struct {
	// Mining is the mining mode: pow, on-demand or off.
	Mining string `json:"mining"`
	// ProofOfWork is false when the node mines and accepts blocks without it (--disable-pow).
	ProofOfWork bool `json:"proofOfWork"`
	// Pending is the number of pending transactions of each chain, by chain id.
	Pending map[string]int `json:"pending"`
	// PendingKeys are some pending request keys (at most MaxPendingKeys), for links.
	PendingKeys []PendingTx `json:"pendingKeys"`
	// Peers are the peer API addresses this node syncs with.
	Peers []string `json:"peers"`
	// Mined is how many blocks this node mined since it started.
	Mined uint64 `json:"mined"`
}

// PendingTx is a pending transaction: its chain and request key.
type PendingTx struct {
	Chain  string `json:"chain"`
	ReqKey string `json:"reqKey"`
}

// MaxPendingKeys bounds Status.PendingKeys: the page lists a few, the counts say the rest.
const MaxPendingKeys = 50

// JSON encodes s.
func (s Status) JSON() []byte {
	if s.Pending == nil {
		s.Pending = map[string]int{}
	}
	if s.PendingKeys == nil {
		s.PendingKeys = []PendingTx{}
	}
	if s.Peers == nil {
		s.Peers = []string{}
	}
	b, _ := json.Marshal(s) // plain fields always marshal
	return b
}
