// Runs dist/cli/cairn.mjs with the V8 CPU profiler on in the main thread AND in its worker
// threads. The CLI's pool starts workers with `execArgv: []`, which drops the parent's
// --cpu-prof; this launcher wraps worker_threads.Worker (syncBuiltinESMExports makes the ESM
// import see the wrapper) to add --cpu-prof to every worker. Nothing in the CLI changes.
//   node --cpu-prof --cpu-prof-dir DIR bench/lib/profile-launch.mjs DIR <cairn arguments…>
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const wt = require('node:worker_threads');
const dir = process.argv[2];
const Original = wt.Worker;
wt.Worker = class ProfiledWorker extends Original {
  constructor(file, options = {}) {
    super(file, { ...options, execArgv: [...(options.execArgv ?? []), '--cpu-prof', '--cpu-prof-dir', dir] });
  }
};
syncBuiltinESMExports();

const cli = process.env.BENCH_CAIRN_CLI ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli/cairn.mjs');
process.argv = [process.argv[0], cli, ...process.argv.slice(3)];
await import(pathToFileURL(cli).href);
