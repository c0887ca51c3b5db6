// A restore decode Web Worker: decrypts and verifies the blobs of pack ranges in place in the
// buffer it is handed (transferred, not copied) and hands it back with the results
// (core/restorer/decode-pool.ts), with the same WASM and crypto choices as the file savers.

/// <reference lib="webworker" />
import { serializeError } from '../../core/errors';
import { decodeRequest, decoderKey, type DecodeInit, type FromDecoder, type ToDecoder } from '../../core/restorer/decode-pool';
import { initWasm } from '../wasm';
import { chooseSha256 } from '../sha256-choice';
import { chooseAes } from '../aes-choice';
import { engineChannel, type WorkerChannel } from '../worker-port';

let channel: WorkerChannel | undefined;
const post = (m: FromDecoder, transfer: ArrayBuffer[] = []) => channel!.post(m, transfer);

let key: ReturnType<typeof decoderKey> | undefined;

async function start(init: DecodeInit): Promise<void> {
  await Promise.all([initWasm(), chooseSha256()]);
  await chooseAes();
  key = decoderKey(init);
}

channel = engineChannel(async (ev: MessageEvent<{ type: 'init'; init: DecodeInit } | ToDecoder>) => {
  const m = ev.data;
  if ('type' in m) {
    start(m.init).then(
      () => post({ type: 'ready' }),
      (e) => post({ type: 'initError', error: serializeError(e) }),
    );
    return;
  }
  const { reply, transfer } = await decodeRequest(key!, m);
  post(reply, transfer);
});
