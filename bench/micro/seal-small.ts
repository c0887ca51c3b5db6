// Sealing and opening tiny blobs with the CLI's primitives (cli/adapters/node-primitives.ts),
// one thread: µs per blob for `seal` then `open` of a 10-byte blob, the unit of a backup or
// restore of many tiny files. `--fresh` runs the same with a new node:crypto cipher for every
// AES call (what the CLI did before it kept one ECB cipher per key), for comparison.
//   npx tsx bench/micro/seal-small.ts [--blobs 200000] [--bytes 10] [--fresh]
import nodeCrypto from 'node:crypto';
import { Key, open, seal } from '../../core/crypto';
import { setPrimitives } from '../../core/crypto/primitives';
import { nodePrimitives } from '../../cli/adapters/node-primitives';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const blobs = Number(arg('blobs') ?? 200_000);
const bytes = Number(arg('bytes') ?? 10);

/** A new cipher per call: node:crypto's createCipheriv for every AES-CTR and AES block. */
const freshCiphers = {
  ...nodePrimitives,
  async aes256ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array, out = new Uint8Array(data.length)) {
    const c = nodeCrypto.createCipheriv('aes-256-ctr', key, iv);
    out.set(c.update(data));
    c.final();
    return out;
  },
  async aes128block(key: Uint8Array, block: Uint8Array) {
    const c = nodeCrypto.createCipheriv('aes-128-ecb', key, null);
    c.setAutoPadding(false);
    return new Uint8Array(Buffer.concat([c.update(block), c.final()]));
  },
};

setPrimitives(process.argv.includes('--fresh') ? freshCiphers : nodePrimitives);
const key = Key.random();
const data = nodeCrypto.randomBytes(bytes);
for (let round = 0; round < 3; round++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < blobs; i++) await open(key, await seal(key, data));
  const c = process.cpuUsage(c0);
  console.log(`round ${round + 1}: ${((c.user + c.system) / blobs).toFixed(2)} µs CPU per ${bytes}-byte blob sealed and opened`);
}
