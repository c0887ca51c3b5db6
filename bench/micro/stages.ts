// The engine's per-byte stages, measured the same way in Node (node.ts) and in a Chromium Web
// Worker (browser-worker.ts): each stage runs over the same inputs in 1 MiB messages — the
// size of an average restic chunk (512 KiB – 8 MiB, mean ~1 MiB) — one message at a time on one
// thread, a warm-up run first, then the median of the runs.
//
// MB/s = 10^6 input bytes per second. "cpu" divides by the CPU time the runtime reports for
// this process (Node: process.cpuUsage, which also counts libuv threads doing WebCrypto);
// that is the per-core figure. Browsers expose no CPU clock to a worker, so there "cpu" is
// absent and "wall" (one thread doing one thing at a time) is the per-core figure.
//
// The primitives come from core/ exactly as the engine calls them: core/chunker (WASM Rabin),
// primitives().sha256 / aes256ctr (node:crypto in Node, WebCrypto in browsers, whichever the
// runtime installed), core/crypto/poly1305 (WASM), core/compress (zstd WASM, level 3 as
// restic's "auto"), and encodeBlob (restic's blob sealing with Cairn's compressibility probe).

import { Chunker } from '../../core/chunker/chunker';
import { chunkStream } from '../../core/chunker/chunk-stream';
import { poly1305 } from '../../core/crypto/poly1305';
import { primitives } from '../../core/crypto/primitives';
import { Key } from '../../core/crypto/keys';
import { compress, decompress } from '../../core/compress';
import { encodeBlob, looksCompressible } from '../../core/repository/blob-codec';
import { hashID } from '../../core/id';

export const MiB = 1 << 20;
/** A fixed, irreducible degree-53 polynomial (the one restic's tests use). */
export const POL = 0x3da3358b4dc173n;

export interface Runtime {
  name: string;
  /** CPU seconds used by this process so far, when the runtime can tell. */
  cpuSeconds?: () => number;
}

export interface Inputs {
  /** Incompressible bytes (any length ≥ the stage size). */
  random: Uint8Array;
  /** Text as in D1's .js/.log/.json files (compresses ~3–5×). */
  text: Uint8Array;
}

export interface StageResult {
  stage: string;
  group: string;
  bytes: number;
  /** Median MB/s by wall clock. */
  wall: number;
  /** Median MB/s by process CPU time (absent where the runtime has no CPU clock). */
  cpu?: number;
  note?: string;
}

interface Stage {
  name: string;
  group: 'chunker' | 'sha256' | 'aes-ctr' | 'poly1305' | 'zstd' | 'pipeline';
  input: keyof Inputs;
  /** Processes `data` (a multiple of 1 MiB); returns an optional note. */
  run(data: Uint8Array, k: Key): Promise<string | void> | string | void;
}

function messages(data: Uint8Array, size = MiB): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += size) out.push(data.subarray(at, Math.min(data.length, at + size)));
  return out;
}

export const STAGES: Stage[] = [
  {
    name: 'chunker scan (WASM), random',
    group: 'chunker',
    input: 'random',
    run(data) {
      const chunker = new Chunker(POL);
      let chunks = 0;
      for (let piece of messages(data)) {
        for (let n = chunker.scan(piece); n >= 0; n = chunker.scan(piece)) {
          chunks++;
          piece = piece.subarray(n);
        }
      }
      return `${chunks} cuts`;
    },
  },
  {
    name: 'chunkStream (scan + contiguous copies), random',
    group: 'chunker',
    input: 'random',
    async run(data) {
      async function* pieces() {
        yield* messages(data);
      }
      let chunks = 0;
      for await (const chunk of chunkStream(new Chunker(POL), pieces())) if (chunk.length > 0) chunks++;
      return `${chunks} chunks`;
    },
  },
  {
    name: 'SHA-256 (primitives), 1 MiB messages',
    group: 'sha256',
    input: 'random',
    async run(data) {
      for (const m of messages(data)) await primitives().sha256(m);
    },
  },
  {
    name: 'AES-256-CTR (primitives), 1 MiB messages',
    group: 'aes-ctr',
    input: 'random',
    async run(data, k) {
      const iv = new Uint8Array(16).fill(7);
      for (const m of messages(data)) await primitives().aes256ctr(k.encrypt, iv, m);
    },
  },
  {
    name: 'Poly1305 (WASM), 1 MiB messages',
    group: 'poly1305',
    input: 'random',
    run(data, k) {
      const key = new Uint8Array(32);
      key.set(k.macR, 0);
      for (const m of messages(data)) poly1305(key, m);
    },
  },
  {
    name: 'zstd -3 compress (WASM), text, 1 MiB blocks',
    group: 'zstd',
    input: 'text',
    run(data) {
      let out = 0;
      for (const m of messages(data)) out += compress(m, 3).length;
      return `ratio ${(data.length / out).toFixed(2)}`;
    },
  },
  {
    name: 'zstd -3 compress (WASM), random, 1 MiB blocks',
    group: 'zstd',
    input: 'random',
    run(data) {
      let out = 0;
      for (const m of messages(data)) out += compress(m, 3).length;
      return `ratio ${(data.length / out).toFixed(3)}`;
    },
  },
  {
    name: 'zstd decompress (WASM), text, 1 MiB blocks',
    group: 'zstd',
    input: 'text',
    run(data) {
      // The frames are made once per input, before the clock starts (runStages).
      const frames = zstdFrames(data);
      for (const [f, n] of frames) decompress(f, n);
    },
  },
  {
    name: 'compressibility probe (3 × 16 KiB at level 1), random',
    group: 'zstd',
    input: 'random',
    run(data) {
      let yes = 0;
      for (const m of messages(data)) if (looksCompressible(m)) yes++;
      return `${yes} of ${data.length / MiB} judged compressible`;
    },
  },
  {
    name: 'blob pipeline: hash + encodeBlob(auto), random',
    group: 'pipeline',
    input: 'random',
    async run(data, k) {
      for (const m of messages(data)) {
        await hashID(m);
        await encodeBlob(k, 'data', m, 2, 'auto');
      }
    },
  },
  {
    name: 'blob pipeline: hash + encodeBlob(auto), text',
    group: 'pipeline',
    input: 'text',
    async run(data, k) {
      for (const m of messages(data)) {
        await hashID(m);
        await encodeBlob(k, 'data', m, 2, 'auto');
      }
    },
  },
];

const frameCache = new WeakMap<Uint8Array, [Uint8Array, number][]>();
function zstdFrames(data: Uint8Array): [Uint8Array, number][] {
  let f = frameCache.get(data);
  if (!f) {
    f = messages(data).map((m) => [compress(m, 3), m.length]);
    frameCache.set(data, f);
  }
  return f;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export interface RunOptions {
  runs: number;
  /** MiB of input per run. */
  mib: number;
  /** Only stages whose group or name contains one of these. */
  only?: string[];
  onResult?: (r: StageResult) => void;
}

export async function runStages(rt: Runtime, inputs: Inputs, opts: RunOptions): Promise<StageResult[]> {
  const key = new Key(new Uint8Array(32).fill(1), new Uint8Array(16).fill(2), new Uint8Array(16).fill(3));
  const results: StageResult[] = [];
  const size = opts.mib * MiB;
  for (const stage of STAGES) {
    if (opts.only && !opts.only.some((o) => stage.group === o || stage.name.includes(o))) continue;
    const src = inputs[stage.input];
    if (src.length < size) throw new Error(`input ${stage.input} has ${src.length} bytes, need ${size}`);
    const data = src.subarray(0, size);
    if (stage.group === 'zstd' && stage.name.includes('decompress')) zstdFrames(data);
    const walls: number[] = [];
    const cpus: number[] = [];
    let note: string | void = undefined;
    for (let r = -1; r < opts.runs; r++) {
      const c0 = rt.cpuSeconds?.();
      const t0 = performance.now();
      note = await stage.run(data, key);
      const wall = (performance.now() - t0) / 1e3;
      const cpu = c0 === undefined ? undefined : rt.cpuSeconds!() - c0;
      if (r < 0) continue;
      walls.push(size / 1e6 / wall);
      if (cpu !== undefined && cpu > 0) cpus.push(size / 1e6 / cpu);
    }
    const res: StageResult = {
      stage: stage.name,
      group: stage.group,
      bytes: size,
      wall: median(walls),
      ...(cpus.length ? { cpu: median(cpus) } : {}),
      ...(note ? { note } : {}),
    };
    results.push(res);
    opts.onResult?.(res);
  }
  return results;
}

export function formatResult(r: StageResult): string {
  const cpu = r.cpu === undefined ? '     –' : r.cpu.toFixed(0).padStart(6);
  return `${r.stage.padEnd(56)} ${cpu} MB/s cpu ${r.wall.toFixed(0).padStart(6)} MB/s wall${r.note ? `  (${r.note})` : ''}`;
}
