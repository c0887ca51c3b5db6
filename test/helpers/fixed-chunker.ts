// restic draws a random chunker polynomial at `restic init`, so where a file is cut depends on
// the repository: a 3 MiB file is one chunk in about 8 % of them (512 KiB minimum, ~1 MiB
// average). Tests whose premise depends on the cuts make restic copy the polynomial of the
// fixture repository instead (`init --copy-chunker-params`, restic 0.14+): the same file is cut
// the same way in every run.

import { join } from 'node:path';

const FIXTURE = join(import.meta.dirname, '../fixtures/restic-0.14-repo');

/** Arguments for `restic init` that give the new repository the fixture's chunker polynomial. */
export const FIXED_CHUNKER_ARGS: readonly string[] = ['--copy-chunker-params', '--from-repo', FIXTURE];

/** The environment those arguments need (the fixture's password). */
export const FIXED_CHUNKER_ENV: Readonly<Record<string, string>> = { RESTIC_FROM_PASSWORD: 'kat-password' };
