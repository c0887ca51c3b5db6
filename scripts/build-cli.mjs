// Bundles the Node CLI and its worker thread with esbuild into dist/cli/.
// Skips the work when the bundle is newer than every source file (npm run cairn calls this).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const quiet = process.argv.includes('--quiet');
const out = path.join(root, 'dist/cli');
const entries = { cairn: 'cli/cairn.ts', 'file-saver-worker': 'cli/pool/file-saver-worker.ts', 'decode-worker': 'cli/pool/decode-worker.ts' };

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|mjs|json)$/.test(e.name)) t = Math.max(t, fs.statSync(path.join(root, p)).mtimeMs);
  }
  return t;
}

const bundleTime = Math.min(...Object.keys(entries).map((n) => fs.statSync(path.join(out, `${n}.mjs`), { throwIfNoEntry: false })?.mtimeMs ?? 0));
if (bundleTime > Math.max(newest('core'), newest('cli'), fs.statSync(path.join(root, 'package-lock.json')).mtimeMs)) process.exit(0);

await build({
  absWorkingDir: root,
  entryPoints: entries,
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: quiet ? 'warning' : 'info',
  // Keep packages in node_modules (zstd.wasm is read next to its package entry).
  packages: 'external',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
