// The repository config (restic internal/restic/config.go): {"version","id","chunker_polynomial"}.
// Sealed with the master key, never compressed, stored at the fixed name `config`.

import { CairnError } from '../errors';
import { isID, randomID, type ID } from '../id';
import { formatPol, isIrreducible, parsePol, randomPolynomial, type Pol } from '../chunker/polynomial';
import { primitives } from '../crypto/primitives';

export interface Config {
  version: number;
  id: ID;
  chunkerPolynomial: Pol;
}

const MIN_REPO_VERSION = 1;
const MAX_REPO_VERSION = 2;

export function newConfig(version = MAX_REPO_VERSION, polynomial?: Pol): Config {
  return { version, id: randomID(), chunkerPolynomial: polynomial ?? randomPolynomial((n) => primitives().randomBytes(n)) };
}

export function encodeConfig(c: Config): string {
  return JSON.stringify({ version: c.version, id: c.id, chunker_polynomial: formatPol(c.chunkerPolynomial) });
}

export function decodeConfig(json: unknown): Config {
  const o = json as { version?: unknown; id?: unknown; chunker_polynomial?: unknown } | null;
  if (!o || typeof o !== 'object') throw new CairnError('BAD_CONFIG', 'config is not a JSON object');
  // An integer in range: restic decodes the version into a uint, so 1.5 is refused, not rounded.
  if (typeof o.version !== 'number' || !Number.isInteger(o.version) || o.version < MIN_REPO_VERSION || o.version > MAX_REPO_VERSION) {
    throw new CairnError(
      'BAD_CONFIG',
      `unsupported repository version ${JSON.stringify(o.version)} (this program reads versions ${MIN_REPO_VERSION}–${MAX_REPO_VERSION})`,
      {
        detail: { version: o.version },
      },
    );
  }
  if (!isID(o.id)) throw new CairnError('BAD_CONFIG', 'config has no valid repository id');
  if (typeof o.chunker_polynomial !== 'string' || !/^[0-9a-f]{1,16}$/i.test(o.chunker_polynomial)) {
    throw new CairnError('BAD_CONFIG', 'config has no valid chunker polynomial');
  }
  const pol = parsePol(o.chunker_polynomial);
  if (!isIrreducible(pol)) throw new CairnError('BAD_CONFIG', `chunker polynomial ${o.chunker_polynomial} is not irreducible`);
  return { version: o.version, id: o.id, chunkerPolynomial: pol };
}
