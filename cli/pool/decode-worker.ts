// A worker thread that decrypts and verifies the blobs of pack ranges for restore, in place
// in the buffer it is handed (transferred, not copied) and hands back with the results.

import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { decodeBlob } from '../../core/repository/blob-codec';
import { installNodePrimitives } from '../adapters/node-primitives';
import { initZstdNode } from '../adapters/zstd-node';
import type { DecodeInit, FromDecoder, ToDecoder, DecodedRef } from './decode-messages';

const port = parentPort!;
const post = (m: FromDecoder, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

async function main(init: DecodeInit): Promise<void> {
  installNodePrimitives();
  await initZstdNode();
  const key = new Key(init.key.encrypt, init.key.macK, init.key.macR);
  port.on('message', async (m: ToDecoder) => {
    const bytes = new Uint8Array(m.buffer, m.offset, m.length);
    const results: DecodedRef[] = [];
    const extras: Uint8Array[] = [];
    for (const b of m.blobs) {
      try {
        let plain = await decodeBlob(key, bytes.subarray(b.offset, b.offset + b.length), b, true);
        if (plain.buffer === m.buffer) results.push({ at: plain.byteOffset, length: plain.length });
        else {
          // Decompressed into a buffer of its own: sent along (copied if it shares one).
          if (plain.byteOffset !== 0 || plain.byteLength !== plain.buffer.byteLength) plain = plain.slice();
          results.push({ extra: extras.push(plain) - 1 });
        }
      } catch (e) {
        results.push({ error: serializeError(e) });
      }
    }
    post({ type: 'decoded', id: m.id, buffer: m.buffer, results, extras }, [m.buffer, ...extras.map((x) => x.buffer as ArrayBuffer)]);
  });
  post({ type: 'ready' });
}

main(workerData as DecodeInit).catch((e) => post({ type: 'initError', error: serializeError(e) }));
