// Derivations started before they are asked for: an unlock's scrypt begins on the key file the
// offline cache holds while the page is still decrypting the bucket's keys with the same password.
// Invariants: a prepared result is handed out at most once, and only to a request with the same
// password, salt, parameters and length; it is forgotten after `ttlMs` whether taken or not, so
// no derived key outlives the unlock it was made for; a prepared derivation that failed is done
// again rather than reported.

import type { UserKeyDerivation } from '../core/repository/keyfile';

export type Scrypt = (password: Uint8Array, salt: Uint8Array, N: number, r: number, p: number, dkLen: number) => Promise<Uint8Array>;

interface Timers {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

interface Prepared {
  password: Uint8Array;
  result: Promise<Uint8Array>;
  timer: unknown;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export class PreparedDerivations {
  readonly #scrypt: Scrypt;
  readonly #ttlMs: number;
  readonly #timers: Timers;
  readonly #items = new Map<string, Prepared>();

  constructor(scrypt: Scrypt, opts: { ttlMs?: number; timers?: Timers } = {}) {
    this.#scrypt = scrypt;
    this.#ttlMs = opts.ttlMs ?? 30_000;
    this.#timers = opts.timers ?? { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>) };
  }

  /** Starts `d` now; the next `derive` of the same input gets its result. */
  prepare(d: UserKeyDerivation): void {
    const key = keyOf(d.salt, d.N, d.r, d.p, d.dkLen);
    this.#drop(key);
    const result = this.#scrypt(d.password, d.salt, d.N, d.r, d.p, d.dkLen);
    result.catch(() => {}); // a failure is answered by deriving again (derive)
    const timer = this.#timers.setTimeout(() => this.#drop(key), this.#ttlMs);
    this.#items.set(key, { password: d.password.slice(), result, timer });
  }

  /** scrypt: the prepared result when one matches, else a derivation of its own. */
  readonly derive: Scrypt = (password, salt, N, r, p, dkLen) => {
    const key = keyOf(salt, N, r, p, dkLen);
    const hit = this.#items.get(key);
    const matches = hit !== undefined && sameBytes(hit.password, password);
    this.#drop(key);
    if (matches) return hit.result.catch(() => this.#scrypt(password, salt, N, r, p, dkLen));
    return this.#scrypt(password, salt, N, r, p, dkLen);
  };

  /** How many prepared derivations are waiting (tests). */
  get size(): number {
    return this.#items.size;
  }

  #drop(key: string): void {
    const it = this.#items.get(key);
    if (!it) return;
    this.#timers.clearTimeout(it.timer);
    it.password.fill(0);
    this.#items.delete(key);
  }
}

function keyOf(salt: Uint8Array, N: number, r: number, p: number, dkLen: number): string {
  return `${Array.from(salt, (b) => b.toString(16).padStart(2, '0')).join('')}:${N}:${r}:${p}:${dkLen}`;
}
