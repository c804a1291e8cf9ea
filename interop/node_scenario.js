// End-to-end transfer scenario of @kadena/client against a mining ledger-node
// development node. Run by node_test.go (go test ./interop), which builds and
// starts the node.
//
//   node node_scenario.js BASE_URL   BASE_URL is the node's service API root
//                                    (http://HOST:PORT, without /chainweb/...)
//
// Prints one JSON report on standard output, as client.js does: {"ok": bool,
// "checks": [...], "transactions": [...]}; exits 1 when a check failed. The
// keys, the report and the exact decimals are in scenario_lib.js, shared with
// xchain_scenario.js.
'use strict';

const { Pact, createClient, createSignWithKeypair, readKeyset } = require('@kadena/client');
const { getBlocksGasInformation, estimateGasPrice } = require('@kadena/client-utils/core');
const { genKeyPair, signHash } = require('@kadena/cryptography-utils');
const {
  keys: { sender00, sender01 }, minerAccount, networkId, gasLimit, gasPrice,
  report, check, toScaled, fromScaled, transaction, balance, checkBalance, listen, isTransfer, main,
} = require('./scenario_lib');

function transfer(from, to, amount, chainId, label) {
  return transaction(
    Pact.builder
      .execution(Pact.modules.coin.transfer(from, to, { decimal: amount }))
      .addSigner(sender00.publicKey, (withCap) => [
        withCap('coin.GAS'),
        withCap('coin.TRANSFER', from, to, { decimal: amount }),
      ]),
    chainId,
    label,
  );
}

async function scenario(base) {
  const client = createClient(({ chainId }) => `${base}/chainweb/0.0/${networkId}/chain/${chainId}/pact`);
  const sign00 = createSignWithKeypair(sender00);

  // 1. Balances before, through a local that neither preflights nor checks signatures.
  const before0 = await balance(client, 'sender00', '0');
  const before1 = await balance(client, 'sender01', '0');
  check('dirtyRead reads both balances', before0 > 0n && before1 > 0n, {
    sender00: fromScaled(before0),
    sender01: fromScaled(before1),
  });

  // 2. The transfer, built with capabilities and signed by sender00.
  const amount = toScaled('1.25');
  const signed = await sign00(transfer('sender00', 'sender01', '1.25', '0', 'transfer'));
  report.transactions.push(signed);
  check('createSignWithKeypair signs the signer slot', signed.sigs.length === 1 && signed.sigs[0] && /^[0-9a-f]{128}$/.test(signed.sigs[0].sig), signed.sigs);

  // 3. Preflight: the node runs it (buying gas and all) without committing it.
  const pre = await client.preflight(signed);
  check('preflight succeeds and charges gas', pre.result && pre.result.status === 'success' && pre.gas > 0 && pre.gas <= gasLimit, pre);

  // 4. Submit: the node's request key is the client's hash.
  const desc = await client.submit(signed);
  check('submit returns the request key the client computed', desc.requestKey === signed.hash && desc.chainId === '0' && desc.networkId === networkId, { desc, hash: signed.hash });

  // 5. Listen until mined: the transfer's event, then the gas paid to the miner.
  const listened = await listen(client, desc);
  const gas = listened.gas;
  const fee = BigInt(gas || 0) * toScaled(String(gasPrice));
  const events = listened.events || [];
  check('listen returns the mined result', listened.reqKey === signed.hash && listened.result && listened.result.status === 'success' && gas > 0, listened);
  check('listen: the transfer event', events.length === 2 && isTransfer(events[0], 'sender00', 'sender01', amount), events);
  check('listen: the gas fee paid to the miner', isTransfer(events[1], 'sender00', minerAccount, fee), { events, gas, fee: fromScaled(fee) });
  check('listen: block metadata', listened.metaData && typeof listened.metaData.blockHash === 'string' && listened.metaData.blockHash.length === 43 && listened.metaData.blockHeight > 0, listened.metaData);
  check('preflight charged the gas the block did', pre.gas === gas, { preflight: pre.gas, mined: gas });

  // 5b. @kadena/client-utils reads gas prices out of recent blocks. Without a height it takes
  // the chain's height from the cut and asks for block?minheight=…&maxheight=<height + 1>, one
  // above the tip; the node stops the list at the tip, as upstream does.
  const minedAt = listened.metaData.blockHeight;
  const tipBefore = await chainHeight(base, '0');
  const recent = await getBlocksGasInformation({ host: base, chainId: '0', networkId, items: 5 });
  // The list holds every stored block, orphans too (a fast-mining node has some), so a height
  // may come more than once, and when the page holds items + 1 blocks the client drops the
  // lowest one: an orphan can cost the lowest height. So: at least 5 blocks, of consecutive
  // heights reaching the tip seen before (or above, when the tip moved on between the two
  // requests) and going down to within 3 of the highest (an orphan and a tip that moved on
  // came together once: heights 9 8 7 7 6 after a tip of 8).
  const heights = [...new Set(recent.map((b) => b.blockHeight))];
  check('getBlocksGasInformation reads the last blocks up to the tip', recent.length >= 5 &&
    heights[0] >= tipBefore && heights[heights.length - 1] <= heights[0] - 3 &&
    heights.every((h, i) => i === 0 || h === heights[i - 1] - 1), { tipBefore, recent });
  // At the transfer's block (height given, so no cut read): its gas price and gas.
  const atTransfer = await getBlocksGasInformation({ host: base, chainId: '0', networkId, height: minedAt, items: 1 });
  check('getBlocksGasInformation: the transfer\'s block, its price and gas', atTransfer.some((b) => b.blockHeight === minedAt &&
    b.txCount >= 1 && b.gasPriceStats.min === gasPrice && b.totalGasConsumed >= gas), { minedAt, gas, atTransfer });
  const estimate = await estimateGasPrice({ host: base, chainId: '0', networkId, height: minedAt, items: 1 });
  check('estimateGasPrice at the transfer\'s block is its gas price', estimate === gasPrice, { estimate, gasPrice });
  const latest = await estimateGasPrice({ host: base, chainId: '0', networkId });
  check('estimateGasPrice over the latest blocks', typeof latest === 'number' && latest >= 1e-8, latest);

  // 6. Poll finds the same result, both through the retrying pollStatus and one poll.
  const polled = await client.pollStatus(desc, { timeout: 30000, interval: 100 });
  const got = await client.getStatus(desc);
  for (const [name, r] of [['pollStatus', polled], ['getStatus', got]]) {
    const one = r[signed.hash];
    check(`${name} returns the result listen returned`, one && JSON.stringify(one) === JSON.stringify(listened), { [name]: one, listen: listened });
  }

  // 7. Balances after: the amount moved, and sender00 also paid gas × price.
  // listen named a block of chain 0, so every later local there has to see that block's writes.
  const mined = { minedAt: listened.metaData, requestKey: signed.hash };
  await checkBalance(client, 'sender00 paid the amount and the fee', 'sender00', '0', before0 - amount - fee,
    { before: fromScaled(before0), ...mined });
  await checkBalance(client, 'sender01 received the amount', 'sender01', '0', before1 + amount,
    { before: fromScaled(before1), ...mined });

  // 8. sender01's signature in sender00's slot: a valid Ed25519 signature of the hash, by the
  // wrong key, which /send must reject before the mempool.
  const forged = transfer('sender00', 'sender01', '1.25', '0', 'forged');
  const { sig } = signHash(forged.hash, sender01);
  forged.sigs = [{ sig }];
  report.transactions.push(forged);
  try {
    const d = await client.submit(forged);
    check('a signature by another key is rejected', false, { accepted: d });
  } catch (e) {
    const msg = String((e && e.message) || e);
    check('a signature by another key is rejected', /Invalid transaction sigs/.test(msg), msg);
  }

  // 9. transfer-create to a new account on chain 1: the client routes by the command's chain,
  // and the node runs and mines it there.
  const fresh = genKeyPair();
  const account = `k:${fresh.publicKey}`;
  const create = await sign00(transaction(
    Pact.builder
      .execution(Pact.modules.coin['transfer-create']('sender00', account, readKeyset('ks'), { decimal: '2.5' }))
      .addKeyset('ks', 'keys-all', fresh.publicKey)
      .addSigner(sender00.publicKey, (withCap) => [
        withCap('coin.GAS'),
        withCap('coin.TRANSFER', 'sender00', account, { decimal: '2.5' }),
      ]),
    '1',
    'create',
  ));
  report.transactions.push(create);
  const createDesc = await client.submit(create);
  check('chain 1: submit returns the request key', createDesc.requestKey === create.hash && createDesc.chainId === '1', createDesc);
  const created = await listen(client, createDesc);
  check('chain 1: transfer-create succeeds', created.result && created.result.status === 'success' && isTransfer((created.events || [])[0], 'sender00', account, toScaled('2.5')), created);
  await checkBalance(client, 'chain 1: the new account holds the amount', account, '1', toScaled('2.5'),
    { minedAt: created.metaData, requestKey: create.hash });
  const unknown = await client.dirtyRead(transaction(
    Pact.builder.execution(Pact.modules.coin['get-balance'](account)), '0', 'unknown'));
  check('chain 0 does not know the chain 1 account', unknown.result && unknown.result.status === 'failure' &&
    /No value found/.test(unknown.result.error && unknown.result.error.message), unknown);

  // 10. runPact sends a command without meta or networkId to local, with neither preflight nor
  // signature verification. chainweb-node 2.32 rejects it, meta being required by the payload
  // decoding of Pact 4 (its local) and Pact 5 alike, so the node does too, in pact -s's words.
  try {
    const r = await client.runPact('(+ 1 2)', {}, { networkId, chainId: '0' });
    check('runPact: a command without meta is rejected, as upstream', false, { accepted: r });
  } catch (e) {
    const msg = String((e && e.message) || e);
    check('runPact: a command without meta is rejected, as upstream', msg === 'Validation failed: meta: missing', msg);
  }
}

// chainHeight is chain chainId's height in the node's cut.
async function chainHeight(base, chainId) {
  const res = await fetch(`${base}/chainweb/0.0/${networkId}/cut`);
  const cut = await res.json();
  return cut.hashes[chainId].height;
}

main(scenario);
