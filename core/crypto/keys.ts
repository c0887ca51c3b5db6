// restic's "crypto.Key": 32 bytes AES-256 key for CTR mode plus a Poly1305-AES MAC key
// (k: AES-128 key for the nonce, r: the Poly1305 multiplier, stored unclamped).
// See restic internal/crypto/crypto.go and docs/restic-format.md §2.

import { CairnError } from '../errors';
import { base64Decode, base64Encode } from './base64';
import { primitives } from './primitives';

export interface MasterKeyJSON {
  mac: { k: string; r: string };
  encrypt: string;
}

export class Key {
  /** AES-256-CTR key. */
  readonly encrypt: Uint8Array;
  /** AES-128 key that encrypts the IV into Poly1305's `s`. */
  readonly macK: Uint8Array;
  /** Poly1305 `r`, unclamped as restic stores it. */
  readonly macR: Uint8Array;

  constructor(encrypt: Uint8Array, macK: Uint8Array, macR: Uint8Array) {
    if (encrypt.length !== 32 || macK.length !== 16 || macR.length !== 16) {
      throw new CairnError('BAD_KEY_FILE', 'key has wrong lengths');
    }
    this.encrypt = encrypt;
    this.macK = macK;
    this.macR = macR;
  }

  /** A fresh random key (a new repository's master key). */
  static random(): Key {
    const b = primitives().randomBytes(64);
    return new Key(b.slice(0, 32), b.slice(32, 48), b.slice(48, 64));
  }

  /** scrypt output → user key: [0:32] encrypt, [32:48] mac.k, [48:64] mac.r (restic kdf.go). */
  static fromKdfOutput(b: Uint8Array): Key {
    if (b.length !== 64) throw new CairnError('BAD_KEY_FILE', 'KDF output must be 64 bytes');
    return new Key(b.slice(0, 32), b.slice(32, 48), b.slice(48, 64));
  }

  /** restic refuses all-zero keys (crypto.Key.Valid). */
  valid(): boolean {
    return !isZero(this.encrypt) && !isZero(this.macK) && !isZero(this.macR);
  }

  toJSON(): MasterKeyJSON {
    return { mac: { k: base64Encode(this.macK), r: base64Encode(this.macR) }, encrypt: base64Encode(this.encrypt) };
  }

  static fromJSON(j: unknown): Key {
    const o = j as Partial<MasterKeyJSON> | null;
    if (!o || typeof o !== 'object' || !o.mac || typeof o.mac.k !== 'string' || typeof o.mac.r !== 'string' || typeof o.encrypt !== 'string') {
      throw new CairnError('BAD_KEY_FILE', 'master key JSON is malformed');
    }
    const key = new Key(base64Decode(o.encrypt), base64Decode(o.mac.k), base64Decode(o.mac.r));
    if (!key.valid()) throw new CairnError('BAD_KEY_FILE', 'master key is all zero');
    return key;
  }
}

function isZero(b: Uint8Array): boolean {
  for (const x of b) if (x !== 0) return false;
  return true;
}
