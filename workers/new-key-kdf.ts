// scrypt parameters for the keys the app creates: a fixed floor no weaker than restic's
// typical key (core/repository/kdf-params.ts DEFAULT_KDF), derived in the KDF worker. The e2e
// builds (vite.config.ts with CAIRN_TEST_HOOKS=1, and the engine harness) define
// __CAIRN_KDF_FOR_TESTS__ as the tests' cheap parameters (test/helpers/test-kdf.json), as the CLI's
// test bundle does for CAIRN_TEST_KDF: dozens of repositories are created there.

import { DEFAULT_KDF, type KdfParams } from '../core/repository/kdf-params';

/** The tests' parameters in the e2e builds; null in the app, undefined in Node and unit tests (no define there). */
declare const __CAIRN_KDF_FOR_TESTS__: KdfParams | null | undefined;

export function newKeyKdf(): KdfParams {
  return (typeof __CAIRN_KDF_FOR_TESTS__ !== 'undefined' && __CAIRN_KDF_FOR_TESTS__) || DEFAULT_KDF;
}
