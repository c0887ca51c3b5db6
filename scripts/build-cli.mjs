// Bundles the Node CLI and its worker threads with esbuild, in two variants:
//   dist/cli       the shipped CLI (bin/cairn runs it): `__CAIRN_KDF_FOR_TESTS__` is null,
//                  so it reads no test-only setting (no CAIRN_TEST_KDF)
//   dist/cli-test  the same with `__CAIRN_KDF_FOR_TESTS__` the tests' parameters
//                  (test/helpers/test-kdf.json): what the tests run (test/helpers/cli.ts
//                  CAIRN_BIN), where CAIRN_TEST_KDF=1 gives cheap keys
// Each variant is skipped when it is newer than every source file (npm run cairn calls this).
//
//   node scripts/build-cli.mjs [--quiet]                         both variants, when stale
//   node scripts/build-cli.mjs --variant shipped|test --outdir DIR [--quiet]   one, always
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const quiet = process.argv.includes('--quiet');
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const entries = {
  cairn: 'cli/cairn.ts',
  'file-saver-worker': 'cli/pool/file-saver-worker.ts',
  'decode-worker': 'cli/pool/decode-worker.ts',
  'stat-worker': 'cli/pool/stat-worker.ts',
};
const TEST_KDF_FILE = path.join(root, 'test/helpers/test-kdf.json');
const VARIANTS = { shipped: { dir: 'dist/cli', testHooks: false }, test: { dir: 'dist/cli-test', testHooks: true } };

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|mjs|json)$/.test(e.name)) t = Math.max(t, fs.statSync(path.join(root, p)).mtimeMs);
  }
  return t;
}

function upToDate(out) {
  const bundleTime = Math.min(...Object.keys(entries).map((n) => fs.statSync(path.join(out, `${n}.mjs`), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  const sources = [
    newest('core'),
    newest('cli'),
    fs.statSync(path.join(root, 'package-lock.json')).mtimeMs,
    fs.statSync(TEST_KDF_FILE).mtimeMs,
    fs.statSync(new URL(import.meta.url)).mtimeMs,
  ];
  return bundleTime > Math.max(...sources);
}

async function bundle(out, testHooks) {
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
    define: { __CAIRN_KDF_FOR_TESTS__: testHooks ? JSON.stringify(JSON.parse(fs.readFileSync(TEST_KDF_FILE, 'utf8'))) : 'null' },
    // Keep packages in node_modules (zstd.wasm is read next to its package entry).
    packages: 'external',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}

const variant = arg('--variant');
if (variant) {
  const v = VARIANTS[variant];
  const out = arg('--outdir');
  if (!v || !out) throw new Error('usage: build-cli.mjs --variant shipped|test --outdir DIR');
  await bundle(path.resolve(out), v.testHooks);
} else {
  for (const v of Object.values(VARIANTS)) {
    const out = path.join(root, v.dir);
    if (!upToDate(out)) await bundle(out, v.testHooks);
  }
}
