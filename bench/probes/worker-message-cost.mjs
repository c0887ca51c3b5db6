// What a message between Node worker threads costs: a burst of messages to a busy receiver,
// and a round trip that wakes a sleeping one (a saver's blob claim). CPU of the whole process.
// usage: node bench/probes/worker-message-cost.mjs
import { Worker } from 'node:worker_threads';
const w = new Worker(
  `const { parentPort } = require('node:worker_threads');
let n = 0; parentPort.on('message', (m) => { if (m === 'end') parentPort.postMessage(n); else n++; });`,
  { eval: true },
);
const N = 100000;
const payload = { type: 'claimed', reqId: 1, results: Array(10).fill(true) };
await new Promise((r) => setTimeout(r, 200));
for (const mode of ['each', 'spaced', 'each', 'spaced']) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (mode === 'each') for (let i = 0; i < N; i++) w.postMessage(payload);
  else
    for (let i = 0; i < N / 100; i++) {
      for (let j = 0; j < 100; j++) w.postMessage(payload);
      await new Promise((r) => setImmediate(r));
    }
  const c = process.cpuUsage(c0);
  const t = performance.now() - t0;
  w.postMessage('end');
  await new Promise((r) => w.once('message', r));
  console.log(mode, ((t * 1000) / N).toFixed(2), 'µs/msg wall', (c.user / N).toFixed(2), 'user', (c.system / N).toFixed(2), 'sys');
}
// ping-pong: a message each way per round, the receiver idle between
const w2 = new Worker(`const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));`, { eval: true });
await new Promise((r) => setTimeout(r, 200));
const R = 20000;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < R; i++) {
  w2.postMessage(payload);
  await new Promise((r) => w2.once('message', r));
}
const c = process.cpuUsage(c0);
console.log(
  'pingpong',
  (((performance.now() - t0) * 1000) / R).toFixed(1),
  'µs/round wall',
  (c.user / R).toFixed(1),
  'user',
  (c.system / R).toFixed(1),
  'sys (whole process)',
);
process.exit(0);
