// Helpers shared by the scenarios that node_test.go runs against a ledger-node development
// node (node_scenario.js, xchain_scenario.js): the published keys, the JSON report, exact
// decimals, balance reads and listen with the request in their errors. Each scenario runs in its
// own node process, so the report is this module's state.
'use strict';

const path = require('path');
const { Pact } = require('@kadena/client');

// Upstream's published development keys: the node's genesis funds sender00..sender09 on every
// chain with them, and the devnet miner key is the one the test starts the node with.
const keys = {
  sender00: {
    publicKey: '368820f80c324bbc7c2b0610688a7da43e39f91d118732671cd9c7500ff43cca',
    secretKey: '251a920c403ae8c8f65f59142316af3c82b631fba46ddea92ee8c95035bd2898',
  },
  sender01: {
    publicKey: '6be2f485a7af75fedb4b7f153a903f7e6000ca4aa501179c91a2450b777bd2a7',
    secretKey: '2beae45b29e850e6b1882ae245b0bab7d0689ebdd0cd777d4314d24d7024b4f7',
  },
  sender02: {
    publicKey: '3a9dd532d73dace195dbb64d1dba6572fb783d0fdd324685e32fbda2f89f99a6',
    secretKey: '9b54e924f7acdb03ad4e471308f9a512dac26a50398b41cab8bfe7a496804dbd',
  },
};
const minerAccount = 'k:f89ef46927f506c70b6a58fd322450a936311dc6ac91f4ec3d8ef949608dbf1f';

const networkId = 'development';
const gasLimit = 1000;
// 1e-7 serializes as "1e-7" in the command's JSON: the node has to read exponent notation, as
// chainweb's JSON parser does, for the client's own encoding of small prices.
const gasPrice = 0.0000001;

const report = { ok: true, checks: [], transactions: [] };

function check(name, ok, detail) {
  report.checks.push({ name, ok: !!ok, detail: ok ? undefined : detail });
  if (!ok) report.ok = false;
  return !!ok;
}

// Exact decimal arithmetic on scaled BigInts: balances are large (genesis funds) and fees tiny
// (gas × 1e-7), so float subtraction would lose the digits the checks are about.
const SCALE = 24;

function toScaled(v) {
  if (v && typeof v === 'object' && 'decimal' in v) v = v.decimal;
  if (v && typeof v === 'object' && 'int' in v) v = v.int;
  let s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string') throw new Error(`not a decimal: ${JSON.stringify(v)}`);
  const m = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s.trim());
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(v)}`);
  const [, sign, int, frac = '', exp = '0'] = m;
  const shift = SCALE + Number(exp) - frac.length;
  let n = BigInt(int + frac);
  if (shift >= 0) n *= 10n ** BigInt(shift);
  else n /= 10n ** BigInt(-shift); // more than SCALE digits: none of our values have them
  return sign === '-' ? -n : n;
}

function fromScaled(n) {
  const neg = n < 0n;
  const s = (neg ? -n : n).toString().padStart(SCALE + 1, '0');
  const frac = s.slice(-SCALE).replace(/0+$/, '');
  return (neg ? '-' : '') + s.slice(0, -SCALE) + (frac ? '.' + frac : '');
}

// The fee a result's gas cost at price, exactly.
function fee(gas, price) {
  return BigInt(gas || 0) * toScaled(String(price));
}

// Nonces unique to the script and the run, so that no two commands the scenarios build (the same
// transfer in two scripts, or in two runs against one node) share a request key.
const script = path.basename((require.main && require.main.filename) || 'scenario.js');
const prefix = script.replace(/\.js$/, '').replace(/_/g, '-');
const run = Date.now().toString(36);

function nonce(label) {
  return `${prefix}-${label}-${run}`;
}

// transaction finishes a builder with the scenario's defaults, overridden by meta.
function transaction(builder, chainId, label, meta = {}) {
  return builder
    .setMeta({ chainId, senderAccount: 'sender00', gasLimit, gasPrice, ttl: 600, ...meta })
    .setNetworkId(networkId)
    .setNonce(nonce(label))
    .createTransaction();
}

let reads = 0;

// balance reads an account's balance with a local; a failure throws with the request and the
// answer, for the report.
async function balance(client, account, chainId) {
  const tx = transaction(
    Pact.builder.execution(Pact.modules.coin['get-balance'](account)),
    chainId,
    `balance-${++reads}`,
  );
  const request = `POST chain/${chainId}/pact/api/v1/local?preflight=false&signatureVerification=false ${tx.cmd}`;
  let res;
  try {
    res = await client.dirtyRead(tx);
  } catch (e) {
    throw new Error(`${request}: ${(e && e.message) || e}`);
  }
  if (!res.result || res.result.status !== 'success') {
    throw new Error(`${request}: ${JSON.stringify(res)}`);
  }
  return toScaled(res.result.data);
}

// checkBalance reads a balance and checks it against want, as one named check that also
// fails, with the request and answer, when the read does; context is added to the detail.
async function checkBalance(client, name, account, chainId, want, context) {
  let got;
  try {
    got = await balance(client, account, chainId);
  } catch (e) {
    return check(name, false, { error: String((e && e.message) || e), want: fromScaled(want), ...context });
  }
  return check(name, got === want, { got: fromScaled(got), want: fromScaled(want), ...context });
}

// listen waits for a result; a failure throws with the request, for the report.
async function listen(client, desc) {
  try {
    return await client.listen(desc);
  } catch (e) {
    throw new Error(`POST chain/${desc.chainId}/pact/api/v1/listen {"listen":"${desc.requestKey}"}: ${(e && e.message) || e}`);
  }
}

// isEvent: an event of coin named name whose parameters are params, decimals (given as
// scaled BigInts) compared exactly.
function isEvent(ev, name, params) {
  if (!ev || ev.name !== name || !ev.module || ev.module.name !== 'coin') return false;
  const got = ev.params || [];
  if (got.length !== params.length) return false;
  try {
    return params.every((p, i) => (typeof p === 'bigint' ? toScaled(got[i]) === p : got[i] === p));
  } catch (e) {
    return false;
  }
}

// A TRANSFER event of coin with these parameters (the amount compared exactly).
function isTransfer(ev, from, to, amount) {
  return isEvent(ev, 'TRANSFER', [from, to, amount]);
}

// main runs scenario(BASE_URL) and prints the report: {"ok": bool, "checks": [...],
// "transactions": [...]}; it exits 1 when a check failed, an exception being one.
async function main(scenario) {
  const [base] = process.argv.slice(2);
  try {
    if (!base) throw new Error(`usage: node ${script} BASE_URL`);
    await scenario(base.replace(/\/+$/, ''));
  } catch (e) {
    check('no exception', false, String((e && e.stack) || e));
  }
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(report.ok ? 0 : 1);
}

module.exports = {
  keys, minerAccount, networkId, gasLimit, gasPrice,
  report, check, toScaled, fromScaled, fee,
  nonce, transaction, balance, checkBalance, listen, isEvent, isTransfer, main,
};
