// Web Worker side of the Chromium micro-benchmark: the same stages as Node (stages.ts), but with
// the browser's primitives — WebCrypto SHA-256 and AES-CTR (core's default webPrimitives) and
// the same WASM chunker, Poly1305 and zstd. Inputs: random bytes from getRandomValues, the text
// corpus fetched from the benchmark's local server.
import { initZstd } from '../../core/compress';
import { MiB, runStages, type StageResult } from './stages';

interface Request {
  runs: number;
  mib: number;
  only?: string[];
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let o = 0; o < n; o += 65536) crypto.getRandomValues(out.subarray(o, Math.min(n, o + 65536)));
  return out;
}

async function text(n: number): Promise<Uint8Array> {
  const corpus = new Uint8Array(await (await fetch('/text.bin')).arrayBuffer());
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += corpus.length) out.set(corpus.subarray(0, Math.min(corpus.length, n - at)), at);
  return out;
}

self.onmessage = async (e: MessageEvent<Request>) => {
  try {
    const { runs, mib, only } = e.data;
    await initZstd(async () => (await fetch('/zstd.wasm')).arrayBuffer());
    const inputs = { random: randomBytes(mib * MiB), text: await text(mib * MiB) };
    const results: StageResult[] = await runStages({ name: 'chromium-worker' }, inputs, {
      runs,
      mib,
      only,
      onResult: (r) => self.postMessage({ type: 'result', result: r }),
    });
    self.postMessage({ type: 'done', results, userAgent: navigator.userAgent, cores: navigator.hardwareConcurrency });
  } catch (err) {
    self.postMessage({ type: 'error', message: String((err as Error)?.stack ?? err) });
  }
};
