// Cross-chain transfer scenario of @kadena/client against a mining ledger-node development node,
// run by node_test.go (go test ./interop) after node_scenario.js, on the same node.
//
//   node xchain_scenario.js BASE_URL   BASE_URL is the node's service API root
//                                      (http://HOST:PORT, without /chainweb/...)
//
// coin.transfer-crosschain from chain 0 to chain 7, two hops apart in the chain graph, so the
// proof crosses an intermediate chain: step 0 signed by sender00 on chain 0, the proof from
// chain 0's spv endpoint through pollCreateSpv, step 1 on chain 7 paid by sender02, the
// balances on both chains, and a replay of step 1 that must fail. A second transfer finishes
// through the gas station: step 1 unsigned, its gas paid by kadena-xchain-gas.
//
// Prints one JSON report on standard output (scenario_lib.js); exits 1 when a check failed.
'use strict';

const { Pact, createClient, createSignWithKeypair, readKeyset } = require('@kadena/client');
const {
  keys: { sender00, sender01, sender02 }, minerAccount, networkId, gasPrice,
  report, check, toScaled, fromScaled, fee, transaction, balance, checkBalance, listen, isEvent, isTransfer, main,
} = require('./scenario_lib');

const source = '0';
const target = '7';
// The development gas station pays only up to this price and limit (pact/contracts/devnet.go).
const stationAccount = 'kadena-xchain-gas';
const stationGasLimit = 850;
const stationGasPrice = 0.00000001;

const sign00 = createSignWithKeypair(sender00);
const sign02 = createSignWithKeypair(sender02);

const errText = (e) => String((e && e.message) || e);

// step0 runs coin.transfer-crosschain of amount from sender00 on the source chain to sender01
// on the target, checks its result and returns it with its descriptor and fee.
async function step0(client, name, amount) {
  const tx = await sign00(transaction(
    Pact.builder
      .execution(Pact.modules.coin['transfer-crosschain']('sender00', 'sender01', readKeyset('ks'), target, { decimal: amount }))
      .addData('ks', { keys: [sender01.publicKey], pred: 'keys-all' })
      .addSigner(sender00.publicKey, (withCap) => [
        withCap('coin.GAS'),
        withCap('coin.TRANSFER_XCHAIN', 'sender00', 'sender01', { decimal: amount }, target),
      ]),
    source,
    `${name}-step0`,
  ));
  report.transactions.push(tx);
  const desc = await client.submit(tx);
  check(`${name}: step 0 submit returns the client's request key`, desc.requestKey === tx.hash && desc.chainId === source, { desc, hash: tx.hash });
  const res = await listen(client, desc);
  const cont = res.continuation || {};
  const events = res.events || [];
  const paid = fee(res.gas, gasPrice);
  // The defpact's id is the hash of the transaction that started it.
  check(`${name}: step 0 succeeds with a continuation at step 0`,
    res.result && res.result.status === 'success' && typeof cont.pactId === 'string' && cont.pactId !== '' &&
      cont.pactId === tx.hash && cont.step === 0 && cont.stepCount === 2, res);
  // The yield names the target chain: chainweb's verifier checks the proof against it.
  const prov = (cont.yield && cont.yield.provenance) || {};
  check(`${name}: step 0 yields to chain ${target}`, prov.targetChainId === target, cont);
  check(`${name}: step 0 burns the amount and pays the miner`,
    events.some((ev) => isTransfer(ev, 'sender00', '', toScaled(amount))) &&
      events.some((ev) => isTransfer(ev, 'sender00', minerAccount, paid)), { events, gas: res.gas, fee: fromScaled(paid) });
  return { desc, res, pactId: cont.pactId, fee: paid };
}

// proof asks the source chain for the proof through pollCreateSpv, which retries while the
// target chain is not yet high enough; a timeout reports the node's last answer.
async function proof(client, name, desc) {
  let p;
  try {
    p = await client.pollCreateSpv(desc, target, { interval: 200, timeout: 30000 });
  } catch (e) {
    let last;
    try {
      last = await client.createSpv(desc, target);
    } catch (e2) {
      last = errText(e2);
    }
    check(`${name}: pollCreateSpv returns the proof`, false,
      { request: `POST chain/${source}/pact/spv {"requestKey":"${desc.requestKey}","targetChainId":"${target}"}`, error: errText(e), last });
    return undefined;
  }
  // The endpoint answers a JSON string, which the client returns as text, quotes and all
  // (Pact.builder.continuation strips them).
  const bare = typeof p === 'string' ? p.replace(/"/g, '') : '';
  let decoded;
  try {
    decoded = JSON.parse(Buffer.from(bare, 'base64url').toString('utf8'));
  } catch (e) {
    decoded = { error: errText(e) };
  }
  check(`${name}: pollCreateSpv returns the proof`, /^"[A-Za-z0-9_-]+"$/.test(p), p);
  check(`${name}: the proof is for chain ${target}`,
    decoded.chain === Number(target) && decoded.algorithm === 'SHA512t_256' && typeof decoded.object === 'string' &&
      decoded.subject && typeof decoded.subject.input === 'string', decoded);
  return p;
}

// continuation builds step 1 of pactId with proof on the target chain; with a gas payer's key
// it names that key as a signer scoped to coin.GAS, without one it is unsigned.
function continuation(pactId, p, label, meta, payerKey) {
  let builder = Pact.builder.continuation({ pactId, step: 1, rollback: false, proof: p, data: {} });
  if (payerKey) builder = builder.addSigner(payerKey, (withCap) => [withCap('coin.GAS')]);
  return transaction(builder, target, label, meta);
}

// step1Checks checks step 1 of pactId: the credit to sender01 and the gas paid by payer.
function step1Checks(name, res, pactId, amount, payer, price) {
  const events = res.events || [];
  const paid = fee(res.gas, price);
  const cont = res.continuation || {};
  check(`${name}: step 1 succeeds`, res.result && res.result.status === 'success' && res.result.data === 'Write succeeded' &&
    cont.pactId === pactId && cont.step === 1, res);
  check(`${name}: step 1 credits sender01`,
    events.some((ev) => isTransfer(ev, '', 'sender01', toScaled(amount))) &&
      events.some((ev) => isEvent(ev, 'TRANSFER_XCHAIN_RECD', ['', 'sender01', toScaled(amount), source])), events);
  check(`${name}: ${payer} pays step 1's gas to the miner`, events.some((ev) => isTransfer(ev, payer, minerAccount, paid)),
    { events, gas: res.gas, fee: fromScaled(paid) });
  return paid;
}

async function scenario(base) {
  const client = createClient(({ chainId }) => `${base}/chainweb/0.0/${networkId}/chain/${chainId}/pact`);

  // 1. Balances before.
  const before00 = await balance(client, 'sender00', source);
  const before01 = await balance(client, 'sender01', target);
  const before02 = await balance(client, 'sender02', target);
  check('balances before', before00 > 0n && before01 > 0n && before02 > 0n,
    { sender00: fromScaled(before00), sender01: fromScaled(before01), sender02: fromScaled(before02) });

  // 2.-4. A transfer of 2.5, finished by sender02, who signs for gas only.
  const amount = '2.5';
  const s0 = await step0(client, 'xchain', amount);
  const p = await proof(client, 'xchain', s0.desc);
  if (p === undefined) return;
  const cont = await sign02(continuation(s0.pactId, p, 'xchain-step1', { senderAccount: 'sender02' }, sender02.publicKey));
  report.transactions.push(cont);
  check('xchain: step 1 carries the proof without quotes', JSON.parse(cont.cmd).payload.cont.proof === p.replace(/"/g, ''), cont.cmd);
  const d1 = await client.submit(cont);
  const r1 = await listen(client, d1);
  const fee1 = step1Checks('xchain', r1, s0.pactId, amount, 'sender02', gasPrice);

  // 5. Balances after: the amount left chain 0 with step 0's gas, and arrived on chain 7.
  const mined = { step0: s0.res.metaData, step1: r1.metaData };
  await checkBalance(client, `sender00 on chain ${source} paid the amount and step 0's gas`, 'sender00', source,
    before00 - toScaled(amount) - s0.fee, { before: fromScaled(before00), fee: fromScaled(s0.fee), ...mined });
  await checkBalance(client, `sender01 on chain ${target} received the amount`, 'sender01', target,
    before01 + toScaled(amount), { before: fromScaled(before01), ...mined });
  await checkBalance(client, `sender02 on chain ${target} paid step 1's gas`, 'sender02', target,
    before02 - fee1, { before: fromScaled(before02), fee: fromScaled(fee1), ...mined });

  // 6. The same continuation again, with a new nonce: the defpact is done.
  const replay = await sign02(continuation(s0.pactId, p, 'xchain-replay', { senderAccount: 'sender02' }, sender02.publicKey));
  report.transactions.push(replay);
  const rr = await listen(client, await client.submit(replay));
  check('a second step 1 fails: the defpact is completed', rr.result && rr.result.status === 'failure' &&
    /Requested defpact already completed/.test(rr.result.error && rr.result.error.message), rr);

  // 7. A second transfer finished through the gas station: step 1 unsigned, as kadena.js
  // documents it, with senderAccount kadena-xchain-gas at its price and limit.
  const amount2 = '1.25';
  const mid01 = await balance(client, 'sender01', target);
  const station = await balance(client, stationAccount, target);
  const g0 = await step0(client, 'gas station', amount2);
  const p2 = await proof(client, 'gas station', g0.desc);
  if (p2 === undefined) return;
  const free = continuation(g0.pactId, p2, 'station-step1',
    { senderAccount: stationAccount, gasLimit: stationGasLimit, gasPrice: stationGasPrice });
  report.transactions.push(free);
  check('gas station: step 1 is unsigned', free.sigs.length === 0 && JSON.parse(free.cmd).signers.length === 0, free);
  let d2;
  try {
    d2 = await client.submit(free);
  } catch (e) {
    check('gas station: /send accepts the unsigned step 1', false, { request: free.cmd, response: errText(e) });
    return;
  }
  const r2 = await listen(client, d2);
  const fee2 = step1Checks('gas station', r2, g0.pactId, amount2, stationAccount, stationGasPrice);
  const mined2 = { step0: g0.res.metaData, step1: r2.metaData };
  await checkBalance(client, `gas station: sender01 on chain ${target} received the whole amount`, 'sender01', target,
    mid01 + toScaled(amount2), { before: fromScaled(mid01), ...mined2 });
  await checkBalance(client, `gas station: ${stationAccount} on chain ${target} paid the gas`, stationAccount, target,
    station - fee2, { before: fromScaled(station), fee: fromScaled(fee2), ...mined2 });
}

main(scenario);
