// A short-lived worker for scrypt's lanes (core/crypto/scrypt-lanes.ts). ROMix needs 128·N·r
// bytes (32 MiB for restic's usual keys, up to 1 GiB for its largest accepted parameters) of
// WASM memory, which WebAssembly never gives back; running it here and terminating the worker
// afterwards returns that memory at once instead of leaving it in the engine for the session.

/// <reference lib="webworker" />
import { romixLanes, touchLanes } from '../core/crypto/scrypt-lanes';
import { engineChannel } from './worker-port';

/** Lanes of 128·r bytes each, to be mixed with ROMix(N, r); or, with no answer, memory made ready for them. */
export type KdfRequest = { lanes: Uint8Array[]; N: number; r: number } | { touch: true; N: number; r: number };

export type KdfResponse = { ok: true; lanes: Uint8Array[] } | { ok: false; message: string };

// Small mixes as soon as the worker starts (it is started as a spare, before a password is
// typed): V8 runs new WebAssembly in its baseline tier and optimises a function once it has
// run a while, and ROMix is one call per lane, so the user's lanes would otherwise run whole in
// the slow tier.
for (let i = 0; i < 8; i++) romixLanes([new Uint8Array(1024)], 1024, 8);

const channel = engineChannel((ev: MessageEvent<KdfRequest>) => {
  const q = ev.data;
  if ('touch' in q) return void touchLanes(q.N, q.r);
  try {
    const lanes = romixLanes(q.lanes, q.N, q.r);
    channel.post(
      { ok: true, lanes } satisfies KdfResponse,
      lanes.map((l) => l.buffer),
    );
  } catch (e) {
    channel.post({ ok: false, message: (e as Error)?.message ?? String(e) } satisfies KdfResponse);
  }
});
