// Restore's pack decoding in Web Workers, one per core like the file savers
// (core/restorer/decode-pool.ts does the pooling; this starts the workers).

import { decodePool, type DecodePool, type FromDecoder } from '../../core/restorer/decode-pool';
import { saverWorkerCount } from './browser-pool';
import decodeWorkerUrl from './decode.worker.ts?worker&url';
import { spawnWorker } from '../spawn';

export function browserDecodePool(opts: { threads?: number } = {}): DecodePool {
  return decodePool(
    (init, events) => {
      const w = spawnWorker(decodeWorkerUrl, 'cairn-decode');
      w.onmessage = (ev: MessageEvent<FromDecoder>) => events.message(ev.data);
      w.onerror = (ev) => {
        ev.preventDefault();
        events.failed(new Error(ev.message || 'decode worker failed to start'));
      };
      w.onmessageerror = () => events.failed(new Error('a message could not be cloned'));
      w.postMessage({ type: 'init', init });
      return { post: (m, transfer) => w.postMessage(m, transfer), terminate: () => w.terminate() };
    },
    saverWorkerCount({ workers: opts.threads }),
  );
}
