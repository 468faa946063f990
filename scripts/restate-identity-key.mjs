#!/usr/bin/env node
// Prints the request identity public key (publickeyv1_…) that `attractor worker --identity-key` takes,
// from the ed25519 private key PEM that restate-server signs its requests with
// (`[worker.invoker] request-identity-private-key-pem-file`; `openssl genpkey -algorithm ed25519`).
import crypto from 'node:crypto';
import fs from 'node:fs';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes) {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let text = '';
  while (value > 0n) {
    text = ALPHABET[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: restate-identity-key.mjs PRIVATE_KEY.pem\n');
  process.exit(2);
}
const jwk = crypto.createPublicKey(fs.readFileSync(file)).export({ format: 'jwk' });
if (jwk.crv !== 'Ed25519') {
  process.stderr.write(`${file} is not an ed25519 key (Restate signs with ed25519)\n`);
  process.exit(1);
}
process.stdout.write(`publickeyv1_${base58(Buffer.from(jwk.x, 'base64url'))}\n`);
