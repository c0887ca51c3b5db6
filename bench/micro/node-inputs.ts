// Inputs for the Node micro-benchmarks: random bytes and a text corpus of a given size.
import { randomFillSync } from 'node:crypto';
import { MiB } from './stages';

export function randomInput(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += 64 * MiB) randomFillSync(out, at, Math.min(64 * MiB, n - at));
  return out;
}

/** Fills n bytes by repeating the corpus (only when the corpus is shorter than n). */
export function textInput(n: number, corpus?: Uint8Array): Uint8Array {
  if (!corpus || corpus.length === 0) {
    const words = 'const let return function backup restore chunk index pack blob tree snapshot user session cookie history'.split(' ');
    let s = '';
    let x = 1;
    while (s.length < n) {
      x = (x * 1103515245 + 12345) >>> 0;
      s += `{"id": ${x % 100000}, "name": "${words[x % words.length]}_${x % 977}", "url": "https://example${x % 200}.com/${words[(x >> 8) % words.length]}"},\n`;
    }
    return new TextEncoder().encode(s.slice(0, n));
  }
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += corpus.length) out.set(corpus.subarray(0, Math.min(corpus.length, n - at)), at);
  return out;
}
