// Package explorer is the node's live explorer page: HTML, JavaScript and CSS embedded in the
// binary (no build step, no CDN: it works offline), served by transport at / on the service
// API. The page reads the node's own public endpoints: /info, the cut, the header update stream
// (server-sent events), header and payload lists, poll, and local for account balances (it
// hashes the command with its own BLAKE2s-256, which the node accepts as Pact does). What the
// public API does not show (mempool sizes, peers, mining mode) comes from Status, a small JSON
// document at /explorer/status.
//
// Files:
//
//	explorer.go   the embedded files, Status and its JSON encoding
//	static/       index.html, app.js (router, pages, BLAKE2s), style.css
//
// Imports: nothing of the module. Nothing here runs unless a browser asks for the page.
package explorer
