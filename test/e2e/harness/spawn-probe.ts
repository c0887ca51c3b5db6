// Part of the harness page: the page takes the engine worker's side of workers/spawn.ts against
// a hostWorkers() of its own, so a spec can start workers through the host and watch what the
// engine would see: a real scrypt worker answering over its port, and the error events of a
// script that is not there and of one that throws on its first message.

import kdfWorkerUrl from '../../../workers/kdf.worker.ts?worker&url';
import { spawnWorker, useWorkerHost, WORKER_HOST, type SpawnedWorker } from '../../../workers/spawn';
import { hostWorkers } from '../../../workers/client/worker-host';
import type { KdfRequest, KdfResponse } from '../../../workers/kdf.worker';
import { scryptLanes } from '../../../core/crypto/scrypt-lanes';

type Outcome = { message: string } | { lanes: Uint8Array[] } | { error: string } | 'timeout';

function outcome(w: SpawnedWorker, first: unknown, ms = 10_000): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    w.onmessage = (ev) => {
      clearTimeout(timer);
      const d = ev.data as KdfResponse;
      resolve(d.ok ? { lanes: d.lanes } : { message: `failed: ${d.message}` });
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      clearTimeout(timer);
      resolve({ error: ev.message });
    };
    w.postMessage(first);
  });
}

/** scrypt(password, salt, N=1024, r=8, p=1, 32) in a hosted worker, and two hosted workers that fail. */
export async function spawnThroughHost(password: string, salt: string): Promise<{ scrypt: Outcome; missing: Outcome; throws: Outcome; afterStop: Outcome }> {
  let port: MessagePort | undefined;
  const stop = hostWorkers({ postMessage: (m: Record<string, MessagePort>) => (port = m[WORKER_HOST]) } as unknown as Worker);
  useWorkerHost(port!);
  const enc = new TextEncoder();
  // The whole scrypt, its one lane mixed by the hosted worker.
  const kdf = spawnWorker(kdfWorkerUrl, 'probe-kdf');
  let scrypt: Outcome = 'timeout';
  const key = await scryptLanes(enc.encode(password), enc.encode(salt), 1024, 8, 1, 32, async (lanes, N, r) => {
    scrypt = await outcome(kdf, { lanes, N, r } satisfies KdfRequest);
    return typeof scrypt === 'object' && 'lanes' in scrypt ? scrypt.lanes : [];
  }).catch(() => undefined);
  if (key) scrypt = { message: Array.from(key, (b) => b.toString(16).padStart(2, '0')).join('') };
  kdf.terminate();
  const request: KdfRequest = { lanes: [new Uint8Array(1024)], N: 1024, r: 8 };
  const missing = await outcome(spawnWorker('/no-such-worker.js', 'probe-missing'), {});
  const blob = URL.createObjectURL(new Blob(['onmessage = () => { throw new Error("boom on a message"); };'], { type: 'text/javascript' }));
  const throws = await outcome(spawnWorker(blob, 'probe-throws'), {});
  // After the host stops (the page stops it as it terminates the engine), a worker asked for
  // is not started and never answers.
  stop();
  const afterStop = await outcome(spawnWorker(kdfWorkerUrl, 'probe-after-stop'), request, 1500);
  URL.revokeObjectURL(blob);
  return { scrypt, missing, throws, afterStop };
}
