// Bundles the presign endpoint (core/presign) for the hosts that run it without Cairn's CLI:
//   dist/presign/cloudflare-worker.mjs   a Workers module (`main` in wrangler.toml)
//   dist/presign/lambda.mjs              an AWS Lambda function-URL handler (`lambda.handler`)
// Both are one self-contained ES module on web APIs only (fetch types, WebCrypto, streams).
//
//   node scripts/build-presign.mjs [--outdir DIR]
import { build } from 'esbuild';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const i = process.argv.indexOf('--outdir');
const outdir = i < 0 ? path.join(root, 'dist/presign') : path.resolve(process.argv[i + 1]);

for (const [name, platform] of [
  ['cloudflare-worker', 'neutral'],
  ['lambda', 'node'],
]) {
  await build({
    absWorkingDir: root,
    entryPoints: { [name]: `core/presign/${name}.ts` },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform,
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
}
console.log(`presign endpoint builds in ${path.relative(root, outdir) || '.'}: cloudflare-worker.mjs, lambda.mjs`);
