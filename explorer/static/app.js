'use strict';
// The ledger-node explorer: one page, routed by the URL's fragment (#/block/3/<hash>), over
// the node's public API. Every value from the node is put into the page as text, never as HTML.

const S = {
  info: null,        // GET /info
  v: '',             // network name, for the API paths
  chains: [],        // chain ids, numeric order
  heights: {},       // chain id -> height in the cut, kept live by the header stream
  recent: [],        // the newest blocks from the stream, newest first
  arrivals: [],      // arrival times (ms) of the blocks of the last 10 s
  txlog: [],         // {at (ms), chain, n}: the transactions of the blocks of the last 60 s
  status: null,      // GET /explorer/status
};
const RECENT = 25;
const api = p => `/chainweb/0.0/${S.v}/${p}`;
const OBJECT_HEADERS = { Accept: 'application/json;blockheader-encoding=object' };

// el builds an element: el('td', {class: 'mono'}, 'text', child, ...). Strings become text nodes.
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const k of kids.flat(Infinity)) {
    if (k === null || k === undefined) continue;
    e.append(k instanceof Node ? k : String(k));
  }
  return e;
}
const link = (href, text, cls) => el('a', { href, class: cls }, text);
const blockLink = (c, hash, text) => link(`#/block/${c}/${hash}`, text || short(hash), 'mono');
const txLink = (rk, text) => link(`#/tx/${rk}`, text || short(rk), 'mono');
const accountLink = a => link(`#/account/${encodeURIComponent(a)}`, a, 'mono');
const short = h => (h && h.length > 16 ? h.slice(0, 10) + '…' + h.slice(-4) : h);
const show = (...kids) => { const m = document.getElementById('main'); m.replaceChildren(...kids.flat(Infinity)); };
const notice = (...kids) => el('p', { class: 'notice' }, ...kids);
function table(head, rows) {
  return el('table', {}, el('thead', {}, el('tr', {}, head.map(h => el('th', {}, h)))),
    el('tbody', {}, rows));
}
const kv = pairs => el('table', { class: 'kv' }, pairs.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', { class: 'mono' }, v))));

class HTTPError extends Error {
  constructor(status, body) { super(`${status}: ${body}`); this.status = status; }
}
async function fetchJSON(url, opts) {
  const r = await fetch(url, opts);
  if (!r.ok) throw new HTTPError(r.status, await r.text());
  return r.json();
}
const postJSON = (url, body) => fetchJSON(url, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
});

// base64url, as chainweb writes hashes and payloads.
function b64urlBytes(s) {
  s = s.replace(/-/g, '+').replace(/_/g, '/');
  while (s.length % 4) s += '=';
  const bin = atob(s);
  const b = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
  return b;
}
const b64urlJSON = s => JSON.parse(new TextDecoder().decode(b64urlBytes(s)));
function b64url(bytes) {
  let bin = '';
  for (const x of bytes) bin += String.fromCharCode(x);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
const isHash = s => /^[A-Za-z0-9_-]{43}$/.test(s);

// BLAKE2s-256 (RFC 7693), for the hash of the commands the account page sends to local: the
// node accepts a BLAKE2s command hash as well as BLAKE2b, and BLAKE2s needs only 32-bit words.
const B2S_IV = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];
const B2S_SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4], [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13], [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11], [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5], [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0]];
function blake2s(bytes) {
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  const v = new Uint32Array(16), m = new Uint32Array(16), block = new Uint8Array(64);
  const h = Uint32Array.from(B2S_IV);
  h[0] ^= 0x01010020; // digest length 32, no key, fanout 1, depth 1
  const g = (a, b, c, d, x, y) => {
    v[a] = v[a] + v[b] + x; v[d] = rotr(v[d] ^ v[a], 16); v[c] = v[c] + v[d]; v[b] = rotr(v[b] ^ v[c], 12);
    v[a] = v[a] + v[b] + y; v[d] = rotr(v[d] ^ v[a], 8); v[c] = v[c] + v[d]; v[b] = rotr(v[b] ^ v[c], 7);
  };
  let off = 0;
  do {
    const len = Math.min(64, bytes.length - off);
    block.fill(0);
    block.set(bytes.subarray(off, off + len));
    const t = off + len;
    for (let i = 0; i < 16; i++) {
      m[i] = block[4 * i] | block[4 * i + 1] << 8 | block[4 * i + 2] << 16 | block[4 * i + 3] << 24;
    }
    for (let i = 0; i < 8; i++) { v[i] = h[i]; v[i + 8] = B2S_IV[i]; }
    v[12] ^= t; v[13] ^= Math.floor(t / 0x100000000);
    if (off + 64 >= bytes.length) v[14] = ~v[14];
    for (const s of B2S_SIGMA) {
      g(0, 4, 8, 12, m[s[0]], m[s[1]]); g(1, 5, 9, 13, m[s[2]], m[s[3]]);
      g(2, 6, 10, 14, m[s[4]], m[s[5]]); g(3, 7, 11, 15, m[s[6]], m[s[7]]);
      g(0, 5, 10, 15, m[s[8]], m[s[9]]); g(1, 6, 11, 12, m[s[10]], m[s[11]]);
      g(2, 7, 8, 13, m[s[12]], m[s[13]]); g(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (let i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
    off += 64;
  } while (off < bytes.length);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = h[i >> 2] >>> (8 * (i & 3));
  return out;
}
window.blake2s = blake2s; // for the browser test's known-answer check

// local runs code on chain c through the node's /local, unsigned.
async function local(c, code) {
  const cmd = JSON.stringify({
    networkId: S.v, nonce: `explorer-${Date.now()}-${Math.random()}`,
    payload: { exec: { code, data: {} } }, signers: [],
    meta: { chainId: String(c), sender: '', gasLimit: 10000, gasPrice: 1e-8, ttl: 600,
      creationTime: Math.floor(Date.now() / 1000) - 60 },
  });
  const hash = b64url(blake2s(new TextEncoder().encode(cmd)));
  return postJSON(api(`chain/${c}/pact/api/v1/local`), { hash, sigs: [], cmd });
}

// pact values as the node writes them: {"decimal": "1.5"}, {"int": 3}, or plain JSON.
function pactValue(x) {
  if (x && typeof x === 'object' && !Array.isArray(x)) {
    if ('decimal' in x && Object.keys(x).length === 1) return x.decimal;
    if ('int' in x && Object.keys(x).length === 1) return String(x.int);
  }
  return typeof x === 'string' ? x : JSON.stringify(x);
}
// fmtNum writes an integer with thousands separators: 1,234,567.
const fmtNum = n => (n === undefined || n === null || n === '' || Number.isNaN(Number(n)) ? String(n) : Number(n).toLocaleString('en-US'));
// ago is a relative age of a time in µs: "12 s ago", "3 min ago".
function ago(us) {
  const s = Math.max(0, Math.round((Date.now() - us / 1000) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}
const age = us => el('span', { class: 'age', 'data-time': us }, ` (${ago(us)})`);
// difficulty is the header's target as chainweb counts difficulty: the largest target (2^256 - 1)
// over the target, the target being 32 bytes little-endian, base64url.
function difficulty(target) {
  const b = b64urlBytes(target);
  let t = 0n;
  for (let i = b.length - 1; i >= 0; i--) t = (t << 8n) | BigInt(b[i]);
  if (t === 0n) return '?';
  return ((1n << 256n) - 1n) / t;
}
window.fmtNum = fmtNum; window.difficulty = difficulty; // for the browser test
const fmtTime = us => new Date(us / 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
const eventText = e => `${e.module ? (e.module.namespace ? e.module.namespace + '.' : '') + e.module.name + '.' : ''}${e.name}(${(e.params || []).map(pactValue).join(', ')})`;

// ---- live data: the cut, the header stream, the node status ----

async function loadCut() {
  const cut = await fetchJSON(api('cut'));
  for (const [c, e] of Object.entries(cut.hashes)) S.heights[c] = e.height;
}

function connectStream() {
  const es = new EventSource(api('header/updates'));
  const live = document.getElementById('live');
  es.onopen = () => { live.textContent = '● live'; };
  es.onerror = () => { live.textContent = '○ reconnecting'; };
  es.addEventListener('BlockHeader', ev => {
    let u;
    try { u = JSON.parse(ev.data); } catch { return; }
    const h = u.header;
    S.heights[h.chainId] = Math.max(S.heights[h.chainId] || 0, h.height);
    S.recent.unshift({ chain: h.chainId, height: h.height, hash: h.hash, txs: u.txCount, time: h.creationTime });
    S.recent.length = Math.min(S.recent.length, RECENT);
    const now = Date.now();
    S.arrivals.push(now);
    while (S.arrivals.length && S.arrivals[0] < now - 10000) S.arrivals.shift();
    if (u.txCount > 0) S.txlog.push({ at: now, chain: h.chainId, n: u.txCount });
    while (S.txlog.length && S.txlog[0].at < now - 60000) S.txlog.shift();
    if (route().page === 'home') updateHome(h.chainId);
    const conf = document.getElementById('confirmations');
    if (conf && conf.dataset.chain === String(h.chainId)) conf.textContent = S.heights[h.chainId] - Number(conf.dataset.height);
  });
}

// seedRecent fills the recent list with the cut's tips, newest first, so that the home page
// shows blocks before the stream brings any (a node that only imported headers brings none).
async function seedRecent() {
  const cut = await fetchJSON(api('cut'));
  const tips = await Promise.all(Object.entries(cut.hashes).map(([c, e]) =>
    fetchJSON(api(`chain/${c}/header/${e.hash}`), { headers: OBJECT_HEADERS }).catch(() => null)));
  if (S.recent.length > 0) return; // the stream came first
  S.recent = tips.filter(h => h).sort((a, b) => b.creationTime - a.creationTime).slice(0, RECENT)
    .map(h => ({ chain: h.chainId, height: h.height, hash: h.hash, txs: '?', time: h.creationTime }));
}

async function loadStatus() {
  try { S.status = await fetchJSON('/explorer/status'); } catch { S.status = null; }
}

// ---- pages ----

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  switch (parts[0]) {
    case 'chain': return { page: 'chain', chain: parts[1], top: parts[2] };
    case 'height': return { page: 'height', height: parts[1] };
    case 'block': return { page: 'block', chain: parts[1], hash: parts[2] };
    case 'tx': return { page: 'tx', key: parts[1] };
    case 'cont': return { page: 'cont', chain: parts[1], pact: parts[2] };
    case 'account': return { page: 'account', name: parts.slice(1).join('/') };
    case 'search': return { page: 'search', q: parts.slice(1).join('/') };
    default: return { page: 'home' };
  }
}

// render draws the page the URL names. Renders run one after another, and one whose URL is no
// longer the page's is skipped: a slow page finishing late would otherwise replace a newer one.
let rendering = Promise.resolve();
function render() {
  const want = location.hash;
  rendering = rendering.then(() => (location.hash === want ? renderNow() : undefined));
  return rendering;
}

async function renderNow() {
  const r = route();
  try {
    switch (r.page) {
      case 'home': return await homePage();
      case 'chain': return await chainPage(r.chain, r.top);
      case 'height': return await heightPage(r.height);
      case 'block': return await blockPage(r.chain, r.hash);
      case 'tx': return await txPage(r.key);
      case 'cont': return await contPage(r.chain, r.pact);
      case 'account': return await accountPage(r.name);
      case 'search': return await searchPage(r.q);
    }
  } catch (e) {
    show(el('h1', {}, 'Something went wrong'), notice(`The node answered: ${e.message}`));
  }
}

// tps is chain c's transactions per second over the last 60 s of the stream.
const tps = c => S.txlog.filter(x => String(x.chain) === String(c) && x.at >= Date.now() - 60000).reduce((a, x) => a + x.n, 0) / 60;
const tpsText = c => `${tps(c).toFixed(2)} tx/s`;
const cutHeight = () => Object.values(S.heights).reduce((a, b) => a + b, 0);

async function homePage() {
  await loadStatus();
  const st = S.status || {};
  const tiles = S.chains.map(c => el('a', { class: 'chain', id: `chain-${c}`, href: `#/chain/${c}` },
    el('div', { class: 'id' }, `chain ${c}`), el('div', { class: 'height', 'data-height': S.heights[c] }, fmtNum(S.heights[c])),
    el('div', { class: 'tps', 'data-tps': tps(c) }, tpsText(c))));
  const pending = Object.entries(st.pending || {}).filter(([, n]) => n > 0);
  show(
    el('div', { class: 'panel stats' },
      el('div', {}, 'cut height', el('b', { id: 'cut-height' }, fmtNum(cutHeight()))),
      el('div', {}, 'blocks/s (10 s)', el('b', { id: 'rate' }, (S.arrivals.length / 10).toFixed(1))),
      el('div', {}, 'chains', el('b', {}, S.chains.length)),
      el('div', {}, 'mining', el('b', { id: 'mining' }, (st.mining || '?') + (st.proofOfWork === false ? ' (no PoW)' : ''))),
      el('div', {}, 'mined here', el('b', {}, st.mined ?? '?')),
      el('div', {}, 'node', el('b', {}, `${S.info.nodePackageVersion}`))),
    el('h2', {}, 'The braid'),
    el('div', { class: 'panel braid', id: 'braid' }, tiles),
    el('h2', {}, 'Recent blocks'),
    el('div', { class: 'panel', id: 'recent' }, recentTable()),
    el('h2', {}, 'Mempool'),
    el('div', { class: 'panel', id: 'mempool' },
      pending.length === 0 ? el('p', { class: 'muted' }, 'No pending transactions.')
        : [table(['chain', 'pending'], pending.map(([c, n]) => el('tr', {}, el('td', {}, c), el('td', {}, n)))),
          el('p', {}, (st.pendingKeys || []).map(p => [txLink(p.reqKey), ` (chain ${p.chain}) `]))]),
    el('h2', {}, 'Peers'),
    el('div', { class: 'panel', id: 'peers' },
      (st.peers || []).length === 0 ? el('p', { class: 'muted' }, 'No peers: this node runs alone.')
        : el('ul', {}, st.peers.map(p => el('li', { class: 'mono' }, p)))),
    el('h2', {}, 'Node'),
    el('div', { class: 'panel' }, kv([
      ['network', S.info.nodeVersion], ['package version', S.info.nodePackageVersion],
      ['block delay', `${S.info.nodeBlockDelay / 1e6} s`], ['chains', S.info.nodeNumberOfChains],
      ['API version', S.info.nodeApiVersion], ['service date', S.info.nodeServiceDate ?? 'none'],
    ])));
}

function recentTable() {
  if (S.recent.length === 0) return el('p', { class: 'muted' }, 'Waiting for the next block…');
  return table(['chain', 'height', 'hash', 'txs', 'created'], S.recent.map(b => el('tr', {},
    el('td', {}, link(`#/chain/${b.chain}`, b.chain)), el('td', {}, fmtNum(b.height)),
    el('td', {}, blockLink(b.chain, b.hash)), el('td', {}, b.txs), el('td', {}, fmtTime(b.time), age(b.time)))));
}

// updateHome refreshes the live parts of the home page in place.
function updateHome(chain) {
  const tile = document.getElementById(`chain-${chain}`);
  if (!tile) return;
  const hd = tile.querySelector('.height');
  hd.textContent = fmtNum(S.heights[chain]);
  hd.setAttribute('data-height', S.heights[chain]);
  const tp = tile.querySelector('.tps');
  tp.textContent = tpsText(chain);
  tp.setAttribute('data-tps', tps(chain));
  tile.classList.add('flash');
  setTimeout(() => tile.classList.remove('flash'), 50);
  document.getElementById('cut-height').textContent = fmtNum(cutHeight());
  document.getElementById('rate').textContent = (S.arrivals.length / 10).toFixed(1);
  document.getElementById('recent').replaceChildren(recentTable());
}

async function chainPage(c, upTo) {
  if (!S.chains.includes(Number(c))) {
    return show(el('h1', {}, `Chain ${c}`), notice(`${S.v} has no chain ${c}: its chains are ${S.chains.join(', ')}.`));
  }
  const cut = await fetchJSON(api('cut'));
  for (const [k, e] of Object.entries(cut.hashes)) S.heights[k] = e.height;
  const tipHeight = S.heights[c], tip = cut.hashes[c].hash;
  const top = /^\d+$/.test(upTo || '') ? Math.min(Number(upTo), tipHeight) : tipHeight, low = Math.max(0, top - 19);
  // Every header of the window's heights, fork siblings included: the range's limit counts
  // siblings, so the pages are followed to the end rather than cut at 20 headers.
  const items = [];
  let next = null;
  for (let i = 0; i < 50; i++) {
    const page = await fetchJSON(api(`chain/${c}/header?minheight=${low}&maxheight=${top}&limit=100` +
      (next ? `&next=${encodeURIComponent(next)}` : '')), { headers: OBJECT_HEADERS });
    items.push(...page.items);
    next = page.next;
    if (!next) break;
  }
  // The main chain is the cut's tip and its ancestors; any other header is an orphan. A window
  // below the tip starts from the tip's ancestor at its top, found through the branch above it.
  const byHash = new Map(items.map(h => [h.hash, h]));
  let head = tip;
  if (top < tipHeight) {
    const br = await fetchJSON(api(`chain/${c}/header/branch?minheight=${top}&maxheight=${top}&limit=1`),
      { method: 'POST', headers: Object.assign({ 'Content-Type': 'application/json' }, OBJECT_HEADERS), body: JSON.stringify({ lower: [], upper: [tip] }) });
    head = br.items.length ? br.items[0].hash : null;
  }
  const main = new Set();
  for (let h = byHash.get(head); h; h = byHash.get(h.parent)) main.add(h.hash);
  items.sort((a, b) => b.height - a.height || (main.has(b.hash) - main.has(a.hash)));
  const rows = items.map(h => el('tr', { class: main.has(h.hash) ? null : 'orphan' },
    el('td', {}, fmtNum(h.height)), el('td', {}, blockLink(c, h.hash),
      main.has(h.hash) ? null : el('span', { class: 'badge orphan-mark', title: 'not an ancestor of the cut' }, ' orphan')),
    el('td', {}, fmtTime(h.creationTime), age(h.creationTime)),
    el('td', { class: 'mono' }, short(h.payloadHash))));
  const pager = el('div', { class: 'pager', id: 'pager' },
    top < tipHeight ? link(`#/chain/${c}/${Math.min(tipHeight, top + 20)}`, '← newer', 'newer') : null,
    low > 0 ? link(`#/chain/${c}/${low - 1}`, 'older →', 'older') : null);
  const orphans = items.length - main.size;
  const mainBlocks = items.filter(h => main.has(h.hash)).reverse(); // oldest first
  const gaps = mainBlocks.slice(1).map((h, i) => (h.creationTime - mainBlocks[i].creationTime) / 1e6);
  show(el('h1', {}, `Chain ${c}`), el('p', {}, `Height ${fmtNum(tipHeight)}. ` +
    (top < tipHeight ? `Blocks ${fmtNum(low)} to ${fmtNum(top)}` : 'The newest blocks') +
    (orphans > 0 ? ` (${orphans} orphaned, off the main chain):` : ':')),
    pager, blockTimeChart(gaps),
    el('div', { class: 'panel', id: 'blocks' }, table(['height', 'hash', 'created', 'payload'], rows)));
}

// blockTimeChart draws the seconds between consecutive blocks as a small SVG line, oldest left.
function blockTimeChart(gaps) {
  if (gaps.length < 2) return null;
  const ns = 'http://www.w3.org/2000/svg', w = 300, h = 60, max = Math.max(...gaps, 1e-6);
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('class', 'chart');
  svg.setAttribute('id', 'block-times');
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute('points', gaps.map((g, i) => `${(i * w / (gaps.length - 1)).toFixed(1)},${(h - 2 - g / max * (h - 4)).toFixed(1)}`).join(' '));
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', '#3b82f6');
  line.setAttribute('stroke-width', '2');
  svg.append(line);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  return el('div', { class: 'panel' }, el('div', { class: 'muted' },
    `Block time, the last ${gaps.length} blocks: mean ${mean.toFixed(1)} s, longest ${max.toFixed(1)} s`), svg);
}

async function blockPage(c, hash) {
  // Asked first, so that a block the node does not have is a sentence, not a failed request.
  const where = isHash(hash) ? await fetchJSON(`/explorer/block/${hash}`) : null;
  if (!where || String(where.chain) !== String(c)) {
    return show(el('h1', {}, 'Block'), notice(where ? `Block ${hash} is on chain ${where.chain}, not chain ${c}: `
      : `This node has no block ${hash} on chain ${c}.`, where ? blockLink(where.chain, hash, 'open it') : null));
  }
  const h = await fetchJSON(api(`chain/${c}/header/${hash}`), { headers: OBJECT_HEADERS });
  let p = null;
  try {
    p = await fetchJSON(api(`chain/${c}/payload/${h.payloadHash}/outputs`));
  } catch (e) {
    if (!(e instanceof HTTPError) || e.status !== 404) throw e;
  }
  const adj = Object.entries(h.adjacents).map(([ac, ah]) => [blockLink(ac, ah), ` (chain ${ac}) `]);
  const fields = kv([
    ['chain', link(`#/chain/${c}`, c)], ['height', fmtNum(h.height)], ['hash', h.hash],
    ['parent', blockLink(c, h.parent, h.parent)], ['adjacent parents', adj],
    ['created', [`${fmtTime(h.creationTime)} (${h.creationTime} µs)`, age(h.creationTime)]], ['epoch start', fmtTime(h.epochStart)],
    ['payload hash', h.payloadHash], ['difficulty', el('span', { id: 'difficulty' }, fmtNum(difficulty(h.target)))], ['target', h.target], ['weight', h.weight], ['nonce', h.nonce],
    ['fork state', h.featureFlags], ['network', h.chainwebVersion],
  ]);
  if (!p) {
    return show(el('h1', {}, `Block ${h.height} of chain ${c}`),
      el('div', { class: 'panel' }, fields),
      notice('This node has the header but not the payload (imported headers without their blocks): ' +
        'the transactions and the coinbase are not known here.'));
  }
  let miner = '';
  try { miner = b64urlJSON(p.minerData).account; } catch { /* shown as empty */ }
  const txs = p.transactions.map(([t, o]) => txRow(t, o));
  show(el('h1', {}, `Block ${h.height} of chain ${c}`),
    el('div', { class: 'panel' }, fields),
    el('h2', {}, `Transactions (${txs.length})`),
    el('div', { class: 'panel', id: 'transactions' }, txs.length === 0 ? el('p', { class: 'muted' }, 'None: only the coinbase.')
      : table(['request key', 'sender', 'code', 'result', 'gas', 'events'], txs)),
    el('h2', {}, 'Coinbase'),
    el('div', { class: 'panel' }, kv([['miner', miner ? accountLink(miner) : 'none'], ['result', coinbaseText(p.coinbase)]])));
}

function coinbaseText(b64) {
  try {
    const o = b64urlJSON(b64);
    return `${o.result.status}; ${(o.events || []).map(eventText).join('; ')}`;
  } catch { return '?'; }
}

function txRow(t, o) {
  let tx = {}, cmd = {}, out = {};
  try { tx = b64urlJSON(t); cmd = JSON.parse(tx.cmd); } catch { /* shown as ? */ }
  try { out = b64urlJSON(o); } catch { /* shown as ? */ }
  const code = cmd.payload && cmd.payload.exec ? cmd.payload.exec.code
    : cmd.payload && cmd.payload.cont ? `continuation of ${cmd.payload.cont.pactId} step ${cmd.payload.cont.step}` : '?';
  return el('tr', {}, el('td', {}, txLink(out.reqKey || tx.hash || '?')),
    el('td', {}, cmd.meta ? accountLink(cmd.meta.sender) : '?'),
    el('td', {}, el('pre', {}, code.length > 200 ? code.slice(0, 200) + '…' : code)),
    el('td', {}, resultText(out.result)), el('td', {}, out.gas ?? '?'),
    el('td', { class: 'mono' }, (out.events || []).map(e => el('div', {}, eventText(e)))));
}

function resultText(r) {
  if (!r) return '?';
  if (r.status === 'success') return el('span', { class: 'ok' }, 'success: ', el('span', { class: 'mono' }, pactValue(r.data)));
  return el('span', { class: 'fail' }, 'failure: ', el('span', { class: 'mono' }, (r.error && r.error.message) || JSON.stringify(r.error)));
}

// findTx polls every chain for request key rk: the chain and result, or null.
async function findTx(rk) {
  const found = await Promise.all(S.chains.map(async c => {
    const res = await postJSON(api(`chain/${c}/pact/api/v1/poll`), { requestKeys: [rk] });
    return res[rk] ? { chain: c, result: res[rk] } : null;
  }));
  return found.find(x => x) || null;
}

// txCommand finds request key rk's command in its block's payload: the parsed cmd, or null.
async function txCommand(c, blockHash, rk) {
  const h = await fetchJSON(api(`chain/${c}/header/${blockHash}`), { headers: OBJECT_HEADERS });
  const p = await fetchJSON(api(`chain/${c}/payload/${h.payloadHash}/outputs`));
  for (const [t] of p.transactions) {
    try {
      const tx = b64urlJSON(t);
      if (tx.hash === rk) return JSON.parse(tx.cmd);
    } catch { /* not this one */ }
  }
  return null;
}

const capText = c => `(${c.name}${(c.args || []).map(a => ' ' + pactValue(a)).join('')})`;

async function txPage(rk) {
  if (!isHash(rk)) return show(el('h1', {}, 'Transaction'), notice(`${rk} is not a request key (43 base64url characters).`));
  const [f] = await Promise.all([findTx(rk), loadCut(), loadStatus()]);
  if (!f) {
    const pending = ((S.status && S.status.pendingKeys) || []).find(p => p.reqKey === rk);
    show(el('h1', {}, 'Transaction'), el('p', { class: 'mono' }, rk),
      notice(pending ? `Pending in the mempool of chain ${pending.chain}: not in a block yet.`
        : 'Not found: no chain of this node has a transaction with this request key, in a block or pending.'));
    // Pending → mined without reload: look again while the page stays on this key.
    if (pending) setTimeout(() => { if (route().page === 'tx' && route().key === rk) render(); }, 2000);
    return;
  }
  const r = f.result, md = r.metaData || {};
  let cmd = null;
  try { cmd = await txCommand(f.chain, md.blockHash, rk); } catch { /* the payload may be missing */ }
  const meta = (cmd && cmd.meta) || {};
  // A cross-chain transfer's sender, receiver and amount are its TRANSFER_XCHAIN's (its
  // TRANSFER burns: it has no receiver).
  const transfer = (r.events || []).find(e => e.name === 'TRANSFER_XCHAIN' && (e.params || []).length === 4) ||
    (r.events || []).find(e => e.name === 'TRANSFER' && (e.params || []).length >= 3);
  const code = cmd && cmd.payload ? (cmd.payload.exec ? cmd.payload.exec.code
    : cmd.payload.cont ? `continuation of ${cmd.payload.cont.pactId} step ${cmd.payload.cont.step}` : '?') : null;
  const fee = meta.gasPrice !== undefined && r.gas !== undefined ? Number(meta.gasPrice) * r.gas : null;
  const confirmations = S.heights[f.chain] - md.blockHeight;
  const rows = [
    ['request key', rk], ['chain', link(`#/chain/${f.chain}`, f.chain)], ['result', resultText(r.result)],
  ];
  if (transfer) {
    const [from, to, amount] = transfer.params.map(pactValue);
    rows.push(['from', el('span', { id: 'tx-from' }, from ? accountLink(from) : '— (minted)')],
      ['to', el('span', { id: 'tx-to' }, to ? accountLink(to) : '— (burnt)')],
      ['amount', el('span', { id: 'tx-amount' }, amount)]);
  }
  rows.push(
    ['block', [blockLink(f.chain, md.blockHash, md.blockHash), ` at height ${md.blockHeight}`]],
    ['confirmations', el('span', { id: 'confirmations', 'data-chain': f.chain, 'data-height': md.blockHeight }, confirmations)],
    ['block time', md.blockTime ? fmtTime(md.blockTime) : '?']);
  if (cmd) {
    rows.push(['sender (gas payer)', meta.sender ? accountLink(meta.sender) : '?'],
      ['creation time', meta.creationTime !== undefined ? `${fmtTime(meta.creationTime * 1e6)} (${meta.creationTime})` : '?'],
      ['TTL', el('span', { id: 'tx-ttl' }, meta.ttl !== undefined ? `${meta.ttl} s` : '?')],
      ['nonce', cmd.nonce ?? '?'],
      ['gas limit', meta.gasLimit ?? '?'], ['gas price', meta.gasPrice ?? '?']);
  }
  rows.push(['gas used', r.gas]);
  if (fee !== null && !Number.isNaN(fee)) rows.push(['fee', `${Number(fee.toPrecision(12))} KDA`]);
  rows.push(...await crossChainRows(r, cmd));
  rows.push(['transaction id', r.txId ?? 'none'], ['logs hash', r.logs ?? 'none'],
    ['continuation', r.continuation ? JSON.stringify(r.continuation) : 'none']);
  const signers = (cmd && cmd.signers) || [];
  show(el('h1', {}, 'Transaction'),
    el('div', { class: 'panel' }, kv(rows)),
    el('h2', {}, 'Code'),
    el('div', { class: 'panel', id: 'code' }, code === null ? el('p', { class: 'muted' }, 'The command is not known here (its block\'s payload is missing).')
      : el('pre', {}, code)),
    el('h2', {}, `Signers (${signers.length})`),
    el('div', { class: 'panel', id: 'signers' }, signers.length === 0 ? el('p', { class: 'muted' }, cmd ? 'None.' : 'Not known.')
      : table(['key', 'scheme', 'capabilities'], signers.map(sg => el('tr', {},
        el('td', { class: 'mono' }, sg.pubKey), el('td', {}, sg.scheme || 'ED25519'),
        el('td', { class: 'mono' }, (sg.clist || []).length === 0 ? 'unrestricted' : sg.clist.map(c => el('div', {}, capText(c)))))))),
    el('h2', {}, `Events (${(r.events || []).length})`),
    el('div', { class: 'panel', id: 'events' }, (r.events || []).length === 0 ? el('p', { class: 'muted' }, 'None.')
      : table(['event', 'module hash'], r.events.map(e => el('tr', {}, el('td', { class: 'mono' }, eventText(e)),
        el('td', { class: 'mono' }, short(e.moduleHash)))))));
}

// continuations reads where pact was continued on chain c, oldest first: [] when nowhere yet
// (or when the node does not serve the index).
async function continuations(c, pact) {
  try {
    return (await fetchJSON(api(`chain/${c}/pact/${pact}/continuations`))).items;
  } catch (e) {
    if (e instanceof HTTPError && e.status === 404) return [];
    throw e;
  }
}
// completion picks the continuation that completed a cross-chain transfer: the successful one,
// else the newest attempt.
const completion = cs => cs.find(x => x.result === 'success') || cs[cs.length - 1] || null;

// crossChainRows links the two ends of a cross-chain transfer: its first step (coin's
// TRANSFER_XCHAIN, whose request key is the pact id) to the continuation on the target chain,
// and a continuation to the step it continues, on the source chain coin's
// TRANSFER_XCHAIN_RECD names.
async function crossChainRows(r, cmd) {
  const coinEvent = name => (r.events || []).find(e => e.name === name && e.module && e.module.name === 'coin' &&
    !e.module.namespace && (e.params || []).length === 4);
  const rows = [];
  const sent = coinEvent('TRANSFER_XCHAIN');
  if (sent && r.continuation && r.continuation.pactId) {
    const target = pactValue(sent.params[3]), pact = r.continuation.pactId;
    let done = null;
    try { done = completion(await continuations(target, pact)); } catch { /* shown as unknown */ }
    rows.push(['cross-chain', el('span', { id: 'tx-continuation' }, 'to chain ', link(`#/chain/${target}`, target), ': ',
      done ? ['completed by ', txLink(done.requestKey), ` (${done.result}) at height ${fmtNum(done.height)}`]
        : 'not completed on the target chain yet')]);
  }
  const cont = cmd && cmd.payload && cmd.payload.cont;
  if (cont && cont.pactId) {
    const recd = coinEvent('TRANSFER_XCHAIN_RECD');
    const source = recd ? pactValue(recd.params[3]) : null;
    rows.push(['continues', el('span', { id: 'tx-pact' }, `step ${cont.step}${cont.rollback ? ' (rollback)' : ''} of pact `,
      txLink(cont.pactId, cont.pactId), source !== null ? [' from chain ', link(`#/chain/${source}`, source)] : null)]);
  }
  return rows;
}

// contPage opens the transaction that continued pact on chain c, or says there is none yet.
async function contPage(c, pact) {
  if (!S.chains.includes(Number(c)) || !isHash(pact || '')) {
    return show(el('h1', {}, 'Continuation'), notice(`No pact ${pact} on chain ${c} to look for.`));
  }
  const done = completion(await continuations(c, pact));
  if (done) return location.replace(`#/tx/${done.requestKey}`);
  show(el('h1', {}, 'Continuation'), el('p', { class: 'mono' }, pact),
    notice(`Pact ${short(pact)} has not been continued on chain ${c} yet: `, txLink(pact, 'its first step')));
}

async function accountPage(name) {
  if (!name) return show(el('h1', {}, 'Account'), notice('No account named.'));
  const quoted = JSON.stringify(name);
  const rows = await Promise.all(S.chains.map(async c => {
    const r = await local(c, `(coin.details ${quoted})`);
    if (r.result.status !== 'success') return { chain: c, missing: true };
    return { chain: c, balance: pactValue(r.result.data.balance), guard: r.result.data.guard };
  }));
  const held = rows.filter(r => !r.missing);
  const total = held.reduce((a, r) => a + Number(r.balance), 0);
  show(el('h1', {}, 'Account ', el('span', { class: 'mono' }, name)),
    held.length === 0 ? notice('No chain of this node has this account.') : el('p', {}, `On ${held.length} of ${S.chains.length} chains; about ${total} KDA in all.`),
    el('div', { class: 'panel', id: 'balances' }, table(['chain', 'balance', 'guard'], rows.map(r => el('tr', {},
      el('td', {}, r.chain), el('td', { class: 'mono balance' }, r.missing ? '—' : r.balance),
      el('td', { class: 'mono' }, r.missing ? 'no account' : JSON.stringify(r.guard)))))),
    el('h2', {}, 'Transfers'),
    el('div', { class: 'panel', id: 'transfers' }, el('p', { class: 'muted' }, 'Loading…')));
  await loadTransfers(name, null);
}

// loadTransfers lists a page of the account's transfers, newest first across chains, into
// #transfers (appended after the rows already there when next is a cursor).
async function loadTransfers(name, next) {
  const box = document.getElementById('transfers');
  let page;
  try {
    page = await fetchJSON(api(`account/${encodeURIComponent(name)}/transfers?limit=20` + (next ? `&next=${encodeURIComponent(next)}` : '')));
  } catch (e) {
    if (box) box.replaceChildren(notice(e instanceof HTTPError && e.status === 404
      ? 'Transfer history unavailable: this node does not serve it.' : `Transfer history unavailable: ${e.message}`));
    return;
  }
  if (!box || route().page !== 'account' || route().name !== name) return;
  const rows = page.items.map(x => el('tr', {},
    el('td', {}, link(`#/chain/${x.chain}`, x.chain)), el('td', {}, blockLink(x.chain, x.blockHash, String(x.height))),
    el('td', {}, x.requestKey ? txLink(x.requestKey) : 'coinbase'),
    el('td', {}, x.from ? accountLink(x.from) : '—'), el('td', {}, x.to ? accountLink(x.to) : '—'),
    el('td', { class: 'mono' }, x.amount),
    el('td', { class: 'xchain' }, crossChainCell(x.crossChain)),
    el('td', {}, x.module)));
  let tbody = box.querySelector('tbody');
  if (!next || !tbody) {
    if (rows.length === 0) return box.replaceChildren(el('p', { class: 'muted' }, 'No transfers.'));
    box.replaceChildren(table(['chain', 'block', 'request key', 'from', 'to', 'amount', 'cross-chain', 'module'], []));
    tbody = box.querySelector('tbody');
  }
  tbody.append(...rows);
  const more = box.querySelector('.more');
  if (more) more.remove();
  if (page.next) {
    const b = el('button', { class: 'more', type: 'button' }, 'Older transfers');
    b.addEventListener('click', () => { b.disabled = true; loadTransfers(name, page.next); });
    box.append(b);
  }
}

// crossChainCell links a transfer's other end: the continuation on the target chain (through
// the cont page, which looks it up when followed) or the first step on the source chain.
function crossChainCell(x) {
  if (!x) return '';
  if (x.targetChain) {
    return ['to chain ', link(`#/chain/${x.targetChain}`, x.targetChain),
      x.pactId ? [' ', link(`#/cont/${x.targetChain}/${x.pactId}`, 'continuation', 'to-continuation')] : null];
  }
  return ['from chain ', link(`#/chain/${x.sourceChain}`, x.sourceChain),
    x.pactId ? [' ', link(`#/tx/${x.pactId}`, 'first step', 'to-source')] : null];
}

// heightPage lists the blocks at height n on every chain that has reached it.
async function heightPage(n) {
  if (!/^\d+$/.test(n || '')) return show(el('h1', {}, 'Height'), notice(`${n} is not a height.`));
  await loadCut();
  const hs = await Promise.all(S.chains.filter(c => S.heights[c] >= Number(n)).map(async c => {
    const p = await fetchJSON(api(`chain/${c}/header?minheight=${n}&maxheight=${n}&limit=10`), { headers: OBJECT_HEADERS });
    return p.items.map(h => ({ c, h }));
  }));
  const rows = hs.flat().map(({ c, h }) => el('tr', {}, el('td', {}, link(`#/chain/${c}`, c)),
    el('td', {}, blockLink(c, h.hash)), el('td', {}, fmtTime(h.creationTime), age(h.creationTime))));
  show(el('h1', {}, `Height ${fmtNum(n)}`),
    rows.length === 0 ? notice(`No chain of this node has reached height ${fmtNum(n)}.`)
      : el('div', { class: 'panel', id: 'heights' }, table(['chain', 'hash', 'created'], rows)));
}

// searchPage finds what q names: a request key, a block hash, or else an account.
async function searchPage(q) {
  q = q.trim();
  if (/^\d+$/.test(q)) return location.replace(`#/height/${q}`);
  show(el('h1', {}, 'Search'), el('p', { class: 'muted' }, `Looking for ${q}…`));
  if (isHash(q)) {
    if (await findTx(q)) return location.replace(`#/tx/${q}`);
    const b = await fetchJSON(`/explorer/block/${q}`);
    if (b) return location.replace(`#/block/${b.chain}/${q}`);
    // Neither mined nor a block: a pending or unknown request key, which its page says.
    return location.replace(`#/tx/${q}`);
  }
  if (q) return location.replace(`#/account/${encodeURIComponent(q)}`);
  show(el('h1', {}, 'Search'), notice('Type a block hash, a request key or an account name.'));
}

async function main() {
  S.info = await fetchJSON('/info');
  S.v = S.info.nodeVersion;
  S.chains = S.info.nodeChains.map(Number).sort((a, b) => a - b);
  document.getElementById('network').textContent = `${S.v} · ${S.chains.length} chains`;
  document.title = `ledger-node explorer · ${S.v}`;
  await loadCut();
  connectStream();
  await seedRecent().catch(() => { /* the stream fills the list */ });
  document.getElementById('search').addEventListener('submit', ev => {
    ev.preventDefault();
    const q = document.getElementById('q').value.trim();
    if (q) location.hash = `#/search/${encodeURIComponent(q)}`;
  });
  window.addEventListener('hashchange', render);
  setInterval(() => { if (route().page === 'home') homeStatus(); }, 3000);
  await render();
}

// homeStatus refreshes the mempool and peers panels of the home page.
async function homeStatus() {
  await loadStatus();
  if (route().page !== 'home' || !S.status) return;
  const now = Date.now();
  while (S.arrivals.length && S.arrivals[0] < now - 10000) S.arrivals.shift();
  const rate = document.getElementById('rate');
  if (rate) rate.textContent = (S.arrivals.length / 10).toFixed(1);
  const st = S.status;
  const pending = Object.entries(st.pending).filter(([, n]) => n > 0);
  const mp = document.getElementById('mempool');
  if (mp) {
    mp.replaceChildren(...[pending.length === 0 ? el('p', { class: 'muted' }, 'No pending transactions.')
      : [table(['chain', 'pending'], pending.map(([c, n]) => el('tr', {}, el('td', {}, c), el('td', {}, n)))),
        el('p', {}, st.pendingKeys.map(p => [txLink(p.reqKey), ` (chain ${p.chain}) `]))]].flat());
  }
}

main().catch(e => show(el('h1', {}, 'The explorer could not start'), notice(String(e))));
