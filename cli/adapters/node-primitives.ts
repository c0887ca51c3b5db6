// node:crypto versions of the engine's primitives: AES-CTR runs ~4× faster than Node's
// WebCrypto here, SHA-256 and scrypt are native too. Installed once by the CLI and by each
// worker thread.

import nodeCrypto from 'node:crypto';
import { setPrimitives, type Primitives } from '../../core/crypto/primitives';

const u8 = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

export const nodePrimitives: Primitives = {
  async sha256(data) {
    return u8(nodeCrypto.createHash('sha256').update(data).digest());
  },
  async aes256ctr(key, iv, data) {
    const c = nodeCrypto.createCipheriv('aes-256-ctr', key, iv);
    const out = new Uint8Array(data.length);
    const a = c.update(data);
    out.set(a, 0);
    const f = c.final();
    if (f.length) out.set(f, a.length);
    return out;
  },
  async aes128block(key, block) {
    const c = nodeCrypto.createCipheriv('aes-128-ecb', key, null);
    c.setAutoPadding(false);
    return u8(Buffer.concat([c.update(block), c.final()]));
  },
  scrypt(password, salt, N, r, p, dkLen) {
    return new Promise((resolve, reject) => {
      nodeCrypto.scrypt(password, salt, dkLen, { N, r, p, maxmem: 256 * N * r + (64 << 20) }, (err, key) => (err ? reject(err) : resolve(u8(key))));
    });
  },
  randomBytes(n) {
    return u8(nodeCrypto.randomBytes(n));
  },
};

export function installNodePrimitives(): void {
  setPrimitives(nodePrimitives);
}
