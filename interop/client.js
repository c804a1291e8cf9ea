// Interoperability checks of `pact -s` against Kadena's JavaScript libraries.
// Run by interop_test.go (go test ./interop), which starts the server.
//
//   node client.js server BASE_URL   build and sign commands with @kadena/client,
//                                    run them through BASE_URL's /api/v1 endpoints
//   node client.js verify FILE       check a command made by `pact -a -l` with
//                                    @kadena/cryptography-utils (hash, verifySig)
//
// Prints one JSON report on standard output: {"ok": bool, "checks": [...],
// "transactions": [...]}; exits 1 when a check failed.
'use strict';

const fs = require('fs');
const { Pact, createClient, createSignWithKeypair } = require('@kadena/client');
const {
  hash,
  verifySig,
  base64UrlDecodeArr,
  hexToBin,
  restoreKeyPairFromSecretKey,
} = require('@kadena/cryptography-utils');

// The keys of cmd/pact/testdata/request (alice.key.yaml, bob.key.yaml).
const alice = restoreKeyPairFromSecretKey('246243bbb9e668a7f24666eaaca75ab0ad49df222de8379f03b2b4b76b03a757');
const bob = restoreKeyPairFromSecretKey('a6da22516ae1d42e30b856953b68f731a736d3bc32925966d8046ce0a31d5db8');

const report = { ok: true, checks: [], transactions: [] };

function check(name, ok, detail) {
  report.checks.push({ name, ok: !!ok, detail: ok ? undefined : detail });
  if (!ok) report.ok = false;
}

const meta = { chainId: '0', senderAccount: 'alice', gasLimit: 1000, gasPrice: 1e-8, ttl: 600, creationTime: 1700000000 };
const run = Date.now().toString(36);

function build(builder, nonce) {
  const tx = builder.setMeta(meta).setNetworkId('development').setNonce(`interop-${nonce}-${run}`).createTransaction();
  check(`${nonce}: @kadena/cryptography-utils hash(cmd) is the command's hash`, hash(tx.cmd) === tx.hash, tx);
  return tx;
}

async function submitted(client, signed, name) {
  report.transactions.push(signed);
  const desc = await client.submit(signed);
  check(`${name}: the server's request key is the client's hash`, desc.requestKey === signed.hash, { desc, hash: signed.hash });
  const result = await client.listen(desc);
  return { desc, result };
}

const moduleCode = `
(module interop-m g
  (defcap g () true)
  (defschema row v:integer)
  (deftable tbl:{row})
  (defcap SIGNED (k:string) (enforce-guard (read-keyset 'ks)))
  (defun signed:string (k:string) (with-capability (SIGNED k) "ok"))
  (defun put:string (k:string v:integer) (insert tbl k {'v: v}))
  (defpact two:string (x:integer)
    (step (yield {'x: x}))
    (step (resume {'x := y} (format "got {}" [y])))))
(create-table tbl)`;

async function server(base) {
  const client = createClient(base);
  const signAlice = createSignWithKeypair(alice);
  const signBoth = createSignWithKeypair([alice, bob]);

  // A simple command: local (preflight, the client's default), then submit, listen, poll.
  const simple = await signAlice(build(Pact.builder.execution('(+ 1 2)').addSigner(alice.publicKey), 'simple'));
  const pre = await client.local(simple);
  check('local (preflight) answers the result', pre.result && pre.result.status === 'success' && pre.result.data.int === 3, pre);
  const dirty = await client.local(simple, { preflight: false, signatureVerification: false });
  check('local without preflight or signature verification', dirty.result && dirty.result.status === 'success', dirty);
  const { desc, result } = await submitted(client, simple, 'simple');
  check('listen returns the result', result.result.status === 'success' && result.result.data.int === 3 && result.reqKey === simple.hash, result);
  const polled = await client.getStatus(desc);
  check('poll returns the result under its request key', polled[simple.hash] && polled[simple.hash].result.status === 'success', polled);
  const one = await client.pollOne(desc);
  check('pollOne returns the result', one.reqKey === simple.hash, one);

  // A module with data, then a two-signer command scoped by capabilities.
  const mod = await signAlice(build(Pact.builder.execution(moduleCode).addSigner(alice.publicKey)
    .addKeyset('ks', 'keys-all', alice.publicKey), 'module'));
  const modRes = (await submitted(client, mod, 'module')).result;
  check('the module installs', modRes.result.status === 'success', modRes);

  const capped = await signBoth(build(Pact.builder.execution('(interop-m.signed "x")')
    .addSigner(alice.publicKey, (withCap) => [withCap('interop-m.SIGNED', 'x')])
    .addSigner(bob.publicKey)
    .addKeyset('ks', 'keys-all', alice.publicKey), 'capped'));
  check('two signatures', capped.sigs.length === 2 && capped.sigs.every((s) => s && s.sig), capped.sigs);
  const cappedRes = (await submitted(client, capped, 'capped')).result;
  check('a capability-scoped signature grants its capability', cappedRes.result.status === 'success' && cappedRes.result.data === 'ok', cappedRes);

  const wrongCap = await signAlice(build(Pact.builder.execution('(interop-m.signed "x")')
    .addSigner(alice.publicKey, (withCap) => [withCap('interop-m.SIGNED', 'y')])
    .addKeyset('ks', 'keys-all', alice.publicKey), 'wrongcap'));
  const wrongRes = (await submitted(client, wrongCap, 'wrongcap')).result;
  check('a signature scoped to another capability does not', wrongRes.result.status === 'failure', wrongRes);

  // A defpact started by one command and continued by another.
  const start = await signAlice(build(Pact.builder.execution('(interop-m.two 5)').addSigner(alice.publicKey), 'pact'));
  const startRes = (await submitted(client, start, 'pact')).result;
  const cont = startRes.continuation || {};
  check('the defpact state comes back', cont.pactId === start.hash && cont.step === 0 && cont.stepCount === 2, startRes);
  const next = await signAlice(build(Pact.builder.continuation({ pactId: start.hash, step: 1, rollback: false })
    .addSigner(alice.publicKey), 'cont'));
  const nextRes = (await submitted(client, next, 'cont')).result;
  check('a continuation built by the client runs the next step', nextRes.result.status === 'success' && nextRes.result.data === 'got 5', nextRes);

  // Rejections: a bad signature and a resubmission.
  const forged = { ...simple, hash: undefined };
  const tx = build(Pact.builder.execution('(+ 2 2)').addSigner(alice.publicKey), 'forged');
  Object.assign(forged, tx, { sigs: [{ sig: '00'.repeat(64) }] });
  try {
    await client.submit(forged);
    check('a forged signature is rejected', false, 'accepted');
  } catch (e) {
    // In the node's words (chainweb's), which pact -s shares.
    check('a forged signature is rejected', /^One or more transactions were invalid: .* failed with: Invalid transaction sigs: The signature at position 0 is invalid/.test(String(e && e.message)), String(e && e.message));
  }
  try {
    await client.submit(simple);
    check('a resubmission is rejected', false, 'accepted');
  } catch (e) {
    check('a resubmission is rejected', /already been submitted/.test(String(e && e.message)), String(e && e.message));
  }
  // runPact's command has no meta: rejected as the node rejects it, in the same words.
  try {
    const r = await client.runPact('(+ 1 2)');
    check('runPact: a command without meta is rejected as on the node', false, { accepted: r });
  } catch (e) {
    const msg = String((e && e.message) || e);
    check('runPact: a command without meta is rejected as on the node', msg === 'Validation failed: meta: missing', msg);
  }
}

function verify(file) {
  const cmd = JSON.parse(fs.readFileSync(file, 'utf8'));
  check('hash(cmd) is the hash pact -a wrote', hash(cmd.cmd) === cmd.hash, { got: hash(cmd.cmd), want: cmd.hash });
  const payload = JSON.parse(cmd.cmd);
  check('one signature per signer', payload.signers.length === cmd.sigs.length && cmd.sigs.length > 0, cmd.sigs);
  const msg = base64UrlDecodeArr(cmd.hash);
  payload.signers.forEach((s, i) => {
    check(`signature ${i} verifies`, verifySig(msg, hexToBin(cmd.sigs[i].sig), hexToBin(s.pubKey)), s.pubKey);
  });
  const tampered = Uint8Array.from(msg);
  tampered[0] ^= 1;
  check('a signature over another hash does not', !verifySig(tampered, hexToBin(cmd.sigs[0].sig), hexToBin(payload.signers[0].pubKey)));
}

async function main() {
  const [mode, arg] = process.argv.slice(2);
  try {
    if (mode === 'server') await server(arg);
    else if (mode === 'verify') verify(arg);
    else throw new Error('usage: node client.js server BASE_URL | verify FILE');
  } catch (e) {
    check('no exception', false, String((e && e.stack) || e));
  }
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(report.ok ? 0 : 1);
}

main();
