// The tests' cheap scrypt parameters (restic's tests do the same): dozens of repositories are
// created. The values live in test-kdf.json so that the test builds can carry them too
// (scripts/build-cli.mjs and the e2e vite configs define __CAIRN_KDF_FOR_TESTS__ from it); product
// code never holds them.

import type { KdfParams } from '../../core/repository/kdf-params';
import params from './test-kdf.json';

export const TEST_KDF: KdfParams = params;
