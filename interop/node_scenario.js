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
}

main(scenario);
