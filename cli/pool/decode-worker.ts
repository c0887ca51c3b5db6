// A worker thread that decrypts and verifies the blobs of pack ranges for restore, in place
// in the buffer it is handed (transferred, not copied) and hands back with the results
// (core/restorer/decode-pool.ts).

import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../core/errors';
import { decodeRequest, decoderKey, type DecodeInit, type FromDecoder, type ToDecoder } from '../../core/restorer/decode-pool';
import { installNodePrimitives } from '../adapters/node-primitives';
import { initZstdNode } from '../adapters/zstd-node';

const port = parentPort!;
const post = (m: FromDecoder, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

async function main(init: DecodeInit): Promise<void> {
  installNodePrimitives();
  await initZstdNode();
  const key = decoderKey(init);
  port.on('message', async (m: ToDecoder) => {
    const { reply, transfer } = await decodeRequest(key, m);
    post(reply, transfer);
  });
  post({ type: 'ready' });
}

main(workerData as DecodeInit).catch((e) => post({ type: 'initError', error: serializeError(e) }));
