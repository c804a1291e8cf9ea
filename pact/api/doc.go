// Package api is the Pact command wire format and the request tools of the
// pact command line (spec pact.md §1.2–§1.4, §2.4): no HTTP, no execution.
//
//   - Command, Payload and their parts, with decoders that check every field
//     and encoders that write P5's bytes (key order of §1.3; Pact values
//     through value.AppendJSON, so numbers follow Pact's rules).
//   - Request keys (BLAKE2b-256 of the exact cmd bytes, unpadded base64url)
//     and VerifyCommand, which checks a command in P5's order: payload and
//     code, hash, signature count, signatures (Ed25519 over the 32 hash
//     bytes, or WebAuthn). A hash equal to the BLAKE2s-256 of cmd is
//     accepted too (DECISIONS.md, "command hash").
//   - Ed25519 key pairs from 32-byte hex seeds, key files and signing.
//   - The texts of /send's rejections that the node's mempool and pact -s
//     both give (rejections.go), chainweb's, so that both read the same.
//   - The request YAML of `pact -a` and `pact -u`, with P5's defaults.
//   - SigData, the YAML of the offline multi-signature workflow (`pact -u`
//     prints it as JSON, which is YAML too; `add-sig`, `combine-sigs`,
//     `sign`).
//
// YAML is read the way P5 reads it (Data.Yaml over libyaml): plain scalars
// that look like null, booleans (y/yes/on/true and their negations, in
// three capitalisations) or numbers (decimal, 0x hexadecimal, 0o octal)
// are those; quoted scalars are strings; a repeated key keeps its last
// value; "<<" merges mappings. P5 ignores unknown keys; a request YAML
// refuses them, naming the valid ones (a misspelt key would silently take
// its default).
package api
