// vitest globalSetup: the interop tests run the bundled CLI (its test bundle, dist/cli-test), so
// build it first (a no-op when it is up to date).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function setup(): void {
  execFileSync(process.execPath, [resolve(import.meta.dirname, '../../scripts/build-cli.mjs'), '--quiet'], { stdio: 'inherit' });
}
