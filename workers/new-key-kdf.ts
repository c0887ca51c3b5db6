// scrypt parameters for the keys the app creates: a fixed floor no weaker than restic's
// typical key (core/repository/kdf-params.ts DEFAULT_KDF), derived in the KDF worker. The e2e
// builds (vite define __CAIRN_TEST_HOOKS__, also set by the engine harness) use the tests'
// cheap parameters instead, as the CLI's tests do with CAIRN_TEST_KDF: dozens of repositories
// are created there.

import { DEFAULT_KDF, TEST_KDF, type KdfParams } from '../core/repository/kdf-params';

declare const __CAIRN_TEST_HOOKS__: boolean | undefined;

/** True in the e2e builds only; false in the app, in Node and in unit tests (no define there). */
const testBuild = typeof __CAIRN_TEST_HOOKS__ !== 'undefined' && __CAIRN_TEST_HOOKS__ === true;

export function newKeyKdf(): KdfParams {
  return testBuild ? TEST_KDF : DEFAULT_KDF;
}
