// The per-byte stages in Node with the CLI's own primitives (node:crypto SHA-256 and AES-CTR,
// WASM chunker, Poly1305 and zstd), one thread. Prints one line per stage, or JSON with --json.
//   npx tsx bench/micro/node.ts [--runs 5] [--mib 64] [--text FILE] [--only chunker,zstd] [--json]
// --text: a text corpus (the benchmark passes D1's text files concatenated); without it a
// JSON-like text is synthesised.
import fs from 'node:fs';
import { installNodePrimitives } from '../../cli/adapters/node-primitives';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { MiB, formatResult, runStages, type Inputs } from './stages';
import { randomInput, textInput } from './node-inputs';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const runs = Number(arg('runs') ?? 5);
const mib = Number(arg('mib') ?? 64);
const only = arg('only')?.split(',');
const json = process.argv.includes('--json');
const textFile = arg('text');

installNodePrimitives();
await initZstdNode();
const inputs: Inputs = {
  random: randomInput(mib * MiB),
  text: textInput(mib * MiB, textFile ? new Uint8Array(fs.readFileSync(textFile)) : undefined),
};
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const results = await runStages({ name: 'node', cpuSeconds }, inputs, { runs, mib, only, onResult: json ? undefined : (r) => console.log(formatResult(r)) });
if (json) console.log(JSON.stringify({ runtime: `node ${process.version}`, runs, mib, results }));
