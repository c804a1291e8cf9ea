package api

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ledgernode/ledger-node/pact/crypto"
	"github.com/ledgernode/ledger-node/pact/jsontext"
	"github.com/ledgernode/ledger-node/pact/keyorder"
)

// SigData is the offline multi-signature form of a command (spec §1.4):
//
//	hash: <request key>
//	sigs:
//	  <pubkey hex>: null    # or the signature's hex once signed
//	cmd: '<payload JSON>'   # omitted in the "cold wallet" form
//
// Sigs is in legacy key order (keyorder.Legacy) with one entry per
// public key; the signers' order is recovered from cmd.
type SigData struct {
	Hash Hash
	Sigs []SigEntry
	// Cmd is nil in the cold-wallet form.
	Cmd *string
}

// A SigEntry is a public key (64 hex digits) and its signature (128 hex
// digits), nil while missing.
type SigEntry struct {
	PubKey string
	Sig    *string
}

// Complete reports whether every signature is present.
func (sd *SigData) Complete() bool {
	for _, e := range sd.Sigs {
		if e.Sig == nil {
			return false
		}
	}
	return true
}

func (sd *SigData) lookup(pub string) (*SigEntry, bool) {
	for i := range sd.Sigs {
		if sd.Sigs[i].PubKey == pub {
			return &sd.Sigs[i], true
		}
	}
	return nil, false
}

// sortSigs puts the entries in legacy order, keeping the last of any
// repeated key (a JSON object, then a HashMap, in P5).
func sortSigs(es []SigEntry) []SigEntry {
	last := map[string]*string{}
	var keys []string
	for _, e := range es {
		if _, ok := last[e.PubKey]; !ok {
			keys = append(keys, e.PubKey)
		}
		last[e.PubKey] = e.Sig
	}
	out := make([]SigEntry, 0, len(keys))
	for _, k := range keyorder.Legacy(keys) {
		out = append(out, SigEntry{PubKey: k, Sig: last[k]})
	}
	return out
}

// CommandToSigData is P5's commandToSigData: the command's hash and cmd
// (whose payload must decode and whose code must parse) and an empty
// entry per signer.
func CommandToSigData(c *Command) (*SigData, error) {
	pc, err := ParseCommand(c)
	if err != nil {
		return nil, fmt.Errorf("Error decoding payload: %s", err.(*CommandError).Reason)
	}
	sd := &SigData{Hash: c.Hash, Cmd: &c.Cmd}
	for _, s := range pc.Payload.Signers {
		sd.Sigs = append(sd.Sigs, SigEntry{PubKey: s.PubKey})
	}
	sd.Sigs = sortSigs(sd.Sigs)
	return sd, nil
}

// ParseSigData reads SigData YAML: hash (base64url, 32 bytes), sigs (a
// mapping from 64-hex public keys to null or a signature string) and an
// optional cmd string.
func ParseSigData(data []byte) (*SigData, error) {
	n, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	if n.kind != kObject {
		return nil, errAt(n, "", "expected SigData (a mapping with hash, sigs and cmd), got %s", n.describe())
	}
	sd := &SigData{}
	h, err := required(n, "hash", "")
	if err != nil {
		return nil, err
	}
	if err := want(h, kString, "hash"); err != nil {
		return nil, err
	}
	if sd.Hash, err = ParseHash(h.str); err != nil {
		return nil, errAt(h, "hash", "%v", err)
	}
	sigs, err := required(n, "sigs", "")
	if err != nil {
		return nil, err
	}
	if err := want(sigs, kObject, "sigs"); err != nil {
		return nil, err
	}
	for i, k := range sigs.keys {
		if len(k) != 64 {
			return nil, errAt(sigs.vals[i], join("sigs", k), "Public key must have 64 hex characters")
		}
		if _, err := hex.DecodeString(k); err != nil {
			return nil, errAt(sigs.vals[i], join("sigs", k), "Public key must have 64 hex characters")
		}
		e := SigEntry{PubKey: k}
		switch v := sigs.vals[i]; v.kind {
		case kNull:
		case kString:
			s := v.str
			e.Sig = &s
		default:
			return nil, errAt(v, join("sigs", k), "expected a signature string or null, got %s", v.describe())
		}
		sd.Sigs = append(sd.Sigs, e)
	}
	sd.Sigs = sortSigs(sd.Sigs)
	if sd.Cmd, err = optString(n, "cmd", ""); err != nil {
		return nil, err
	}
	return sd, nil
}

// YAML writes the SigData as P5 prints it (hash, sigs, cmd; cmd omitted
// when nil), without a line width limit.
func (sd *SigData) YAML() []byte {
	sigs := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range sortSigs(sd.Sigs) {
		v := yamlNull()
		if e.Sig != nil {
			v = yamlString(*e.Sig)
		}
		sigs.Content = append(sigs.Content, yamlString(e.PubKey), v)
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		yamlString("hash"), yamlString(sd.Hash.String()),
		yamlString("sigs"), sigs,
	}}
	if sd.Cmd != nil {
		m.Content = append(m.Content, yamlString("cmd"), yamlString(*sd.Cmd))
	}
	return encodeYAML(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}})
}

// JSON writes the SigData as P5's Encode instance does (hash, sigs in
// legacy key order, cmd omitted when nil), on one line. pact -u prints it:
// the interface promises JSON, and JSON is YAML, so add-sig and
// combine-sigs read it as they read P5's YAML.
func (sd *SigData) JSON() []byte {
	buf := []byte(`{"hash":`)
	buf = jsontext.AppendString(buf, sd.Hash.String())
	buf = append(buf, `,"sigs":{`...)
	for i, e := range sortSigs(sd.Sigs) {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsontext.AppendString(buf, e.PubKey)
		buf = append(buf, ':')
		if e.Sig == nil {
			buf = append(buf, "null"...)
		} else {
			buf = jsontext.AppendString(buf, *e.Sig)
		}
	}
	buf = append(buf, '}')
	if sd.Cmd != nil {
		buf = append(buf, `,"cmd":`...)
		buf = jsontext.AppendString(buf, *sd.Cmd)
	}
	return append(buf, '}')
}

// AddSig signs the SigData's hash with k and fills the entry of k's public
// key; it reports whether there was one (a key that is not a signer
// changes nothing, as in P5).
func (sd *SigData) AddSig(k *KeyPair) bool {
	e, ok := sd.lookup(k.PublicHex())
	if !ok {
		return false
	}
	s := k.SignHash(sd.Hash).Sig
	e.Sig = &s
	return true
}

// CombineSigData merges SigData: all must have the same hash and the same
// cmd (where given; at least one must give it) and entries for the same
// keys; each signature is taken from the first that has it.
func CombineSigData(sds []*SigData) (*SigData, error) {
	if len(sds) == 0 {
		return nil, errors.New("nothing to combine")
	}
	out := &SigData{Hash: sds[0].Hash, Sigs: slices.Clone(sds[0].Sigs)}
	for i, sd := range sds {
		if sd.Hash != out.Hash {
			return nil, fmt.Errorf("SigData %d has hash %s, SigData 1 has %s: they are not the same command", i+1, sd.Hash, out.Hash)
		}
		if sd.Cmd != nil {
			if out.Cmd != nil && *out.Cmd != *sd.Cmd {
				return nil, fmt.Errorf("SigData %d has a different cmd than an earlier one", i+1)
			}
			out.Cmd = sd.Cmd
		}
		if i == 0 {
			continue
		}
		if len(sd.Sigs) != len(out.Sigs) {
			return nil, fmt.Errorf("Sig lists have different lengths: SigData %d has %d, SigData 1 has %d", i+1, len(sd.Sigs), len(out.Sigs))
		}
		for j, e := range sd.Sigs {
			if e.PubKey != out.Sigs[j].PubKey {
				return nil, fmt.Errorf("Sig mismatch: SigData %d has key %s where SigData 1 has %s; all must sign for the same keys", i+1, e.PubKey, out.Sigs[j].PubKey)
			}
			if out.Sigs[j].Sig == nil {
				out.Sigs[j].Sig = e.Sig
			}
		}
	}
	if out.Cmd == nil {
		return nil, errors.New("SigData files must contain exactly one unique hash and command: none has a cmd")
	}
	return out, nil
}

// ToCommand is P5's sigDataToCommand: the command with cmd and, for each
// signer of its payload in order, the signature of its public key (those
// present).
func (sd *SigData) ToCommand() (*Command, *ParsedCommand, error) {
	if sd.Cmd == nil {
		return nil, nil, errors.New("Can't reconstruct command: SigData has no cmd")
	}
	c := &Command{Hash: sd.Hash, Cmd: *sd.Cmd, Sigs: []UserSig{}}
	pc, err := ParseCommand(c)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range pc.Payload.Signers {
		if e, ok := sd.lookup(s.PubKey); ok && e.Sig != nil {
			c.Sigs = append(c.Sigs, UserSig{Sig: *e.Sig})
		}
	}
	return c, pc, nil
}

// FinishSigData is what add-sig and combine-sigs do with their result:
//
//   - signatures still missing: verify those present (with cmd: the
//     signer count, each present signature against its signer, then the
//     hash; without: each present signature as Ed25519 against its key)
//     and return the SigData;
//   - all present but no cmd: return the SigData;
//   - all present with cmd: rebuild the command, its sigs in signer order,
//     verify it fully (VerifyCommand) and return it.
//
// Failures are VerificationErrors.
func FinishSigData(sd *SigData) (*SigData, *Command, error) {
	if !sd.Complete() {
		if err := verifyPartial(sd); err != nil {
			return nil, nil, &VerificationError{Reason: err.Error()}
		}
		return sd, nil, nil
	}
	if sd.Cmd == nil {
		return sd, nil, nil
	}
	c, _, err := sd.ToCommand()
	if err == nil {
		_, err = VerifyCommand(c)
	}
	if err != nil {
		return nil, nil, &VerificationError{Reason: err.Error()}
	}
	return nil, c, nil
}

func verifyPartial(sd *SigData) error {
	if sd.Cmd == nil {
		var pairs []sigPair
		for _, e := range sd.Sigs {
			if e.Sig != nil {
				pairs = append(pairs, sigPair{&UserSig{Sig: *e.Sig}, &Signer{Scheme: SchemeED25519, PubKey: e.PubKey}})
			}
		}
		if msg := verifyPairs(sd.Hash, pairs); msg != "" {
			return errors.New(msg)
		}
		return nil
	}
	pc, err := ParseCommand(&Command{Hash: sd.Hash, Cmd: *sd.Cmd})
	if err != nil {
		return errors.New(err.(*CommandError).Reason)
	}
	signers := pc.Payload.Signers
	if len(signers) != len(sd.Sigs) {
		return errors.New("Number of signers in the payload does not match number of signers in the sigData")
	}
	var pairs []sigPair
	for i := range signers {
		e, ok := sd.lookup(signers[i].PubKey)
		if !ok {
			return fmt.Errorf("Signer in payload does not show up in signatures: %s", signers[i].PubKey)
		}
		if e.Sig != nil {
			pairs = append(pairs, sigPair{&UserSig{Sig: *e.Sig}, &signers[i]})
		}
	}
	if msg := verifyPairs(sd.Hash, pairs); msg != "" {
		return errors.New(msg)
	}
	if _, err := checkHash(sd.Hash, *sd.Cmd); err != nil {
		return errors.New(err.(*CommandError).Reason)
	}
	return nil
}

// SignBase64URL is pact sign: input (surrounding white space ignored) is
// unpadded base64url bytes, normally a request key; each key signs them.
// The result maps public keys to signatures, in legacy key order.
func SignBase64URL(input string, keys []*KeyPair) ([]SigEntry, error) {
	msg, err := crypto.DecodeBase64URL([]byte(strings.TrimSpace(input)))
	if err != nil {
		return nil, fmt.Errorf("stdin was not valid base64url: %v", err)
	}
	var es []SigEntry
	for _, k := range keys {
		s := hex.EncodeToString(k.Sign(msg))
		es = append(es, SigEntry{PubKey: k.PublicHex(), Sig: &s})
	}
	return sortSigs(es), nil
}

// SigMapYAML writes entries as a YAML mapping from public key to signature
// (null when missing), as pact sign prints it.
func SigMapYAML(es []SigEntry) []byte {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range es {
		v := yamlNull()
		if e.Sig != nil {
			v = yamlString(*e.Sig)
		}
		m.Content = append(m.Content, yamlString(e.PubKey), v)
	}
	return encodeYAML(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}})
}
