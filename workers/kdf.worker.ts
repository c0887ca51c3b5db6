// A short-lived worker for scrypt. The KDF needs 128·N·r bytes (32 MiB for our keys, up to
// 1 GiB for restic's largest accepted parameters) of WASM memory, which WebAssembly never gives
// back; running it here and terminating the worker afterwards returns that memory at once
// instead of leaving it in the engine for the rest of the session.

/// <reference lib="webworker" />
import { scrypt } from 'hash-wasm';
import { engineChannel } from './worker-port';

export interface KdfRequest {
  password: Uint8Array;
  salt: Uint8Array;
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

export type KdfResponse = { ok: true; key: Uint8Array } | { ok: false; message: string };

// A small derivation as soon as the worker starts (it is started as a spare, before a password
// is typed): V8 runs new WebAssembly in its baseline tier and optimises the hot functions while
// they run, so without this the user's derivation would run its first part in the slow tier.
const warm = scrypt({ password: 'warm-up', salt: new Uint8Array(16), costFactor: 1024, blockSize: 8, parallelism: 1, hashLength: 32 }).catch(() => {});

const channel = engineChannel(async (ev: MessageEvent<KdfRequest>) => {
  await warm;
  const q = ev.data;
  try {
    const key = await scrypt({
      password: q.password,
      salt: q.salt,
      costFactor: q.N,
      blockSize: q.r,
      parallelism: q.p,
      hashLength: q.dkLen,
      outputType: 'binary',
    });
    channel.post({ ok: true, key } satisfies KdfResponse, [key.buffer]);
  } catch (e) {
    channel.post({ ok: false, message: (e as Error)?.message ?? String(e) } satisfies KdfResponse);
  }
});
