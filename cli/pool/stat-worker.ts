// A worker thread that lstats batches of names for the backup's walk (cli/pool/stat-thread.ts):
// the lstat calls, their waits on a cold disk and the BigInt stats they make run here while
// the coordinator walks, compares with the parent and encodes trees.

import { parentPort } from 'node:worker_threads';
import { lstatBatch } from '../adapters/lstat-records';
import type { FromStatThread, ToStatThread } from './stat-thread';

const port = parentPort!;
port.on('message', (m: ToStatThread) => {
  const batch = lstatBatch(m.dir, m.names);
  const reply: FromStatThread = { id: m.id, batch };
  port.postMessage(reply, [batch.secs.buffer, batch.ints.buffer, batch.bigs.buffer]);
});
