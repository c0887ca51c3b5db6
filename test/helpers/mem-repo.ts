// Unit-test helpers: the engine on Node's primitives, repositories on a MemoryBackend with
// cheap scrypt and restic's test polynomial, and the tiny repository restic 0.14 made
// (test/fixtures/restic-0.14-repo) loaded into memory.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MemoryBackend } from '../../core/backend/mem';
import type { Backend, FileType } from '../../core/backend/backend';
import { Repository } from '../../core/repository/repository';
import { TEST_KDF } from './test-kdf';
import type { Pol } from '../../core/chunker/polynomial';
import { initEngine } from './engine';

export { initEngine };

/** The polynomial restic's chunker tests use. */
export const TEST_POL: Pol = 0x3da3358b4dc173n;
export const TEST_PASSWORD = 'unit-test-password';
export const OWNER = { username: 'tester', hostname: 'testhost', created: '2024-01-02T03:04:05Z' };

export async function memRepo(opts: { version?: number; backend?: Backend } = {}): Promise<{ repo: Repository; backend: Backend }> {
  await initEngine();
  const backend = opts.backend ?? new MemoryBackend();
  const repo = await Repository.init(backend, TEST_PASSWORD, { owner: OWNER, kdf: TEST_KDF, version: opts.version ?? 2, polynomial: TEST_POL });
  return { repo, backend };
}

export const RESTIC_FIXTURE = join(import.meta.dirname, '../fixtures/restic-0.14-repo');

export interface ResticFixture {
  password: string;
  masterkey: { mac: { k: string; r: string }; encrypt: string };
  config: { version: number; id: string; chunker_polynomial: string };
  snapshotID: string;
  snapshot: Record<string, unknown>;
  indexID: string;
  index: { packs: { id: string; blobs: { id: string; type: string; offset: number; length: number; uncompressed_length?: number }[] }[] };
  file: { path: string; content: string };
}

export function resticFixture(): ResticFixture {
  return JSON.parse(readFileSync(join(RESTIC_FIXTURE, 'expected.json'), 'utf8')) as ResticFixture;
}

/** One raw file of the restic fixture repository ("config", "keys/<id>", "data/ab/<id>" …). */
export function resticFile(path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(RESTIC_FIXTURE, path)));
}

/** The restic fixture repository as a MemoryBackend. */
export async function resticFixtureBackend(): Promise<MemoryBackend> {
  const be = new MemoryBackend();
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
  for (const file of walk(RESTIC_FIXTURE)) {
    const rel = relative(RESTIC_FIXTURE, file).split('/');
    if (rel[0] === 'config') await be.save({ type: 'config', name: '' }, new Uint8Array(readFileSync(file)));
    else if (['keys', 'data', 'index', 'snapshots'].includes(rel[0]!)) {
      await be.save({ type: rel[0] as FileType, name: rel[rel.length - 1]! }, new Uint8Array(readFileSync(file)));
    }
  }
  return be;
}

export function hex(s: string): Uint8Array {
  return Uint8Array.from(s.match(/../g) ?? [], (b) => parseInt(b, 16));
}

/** Byte equality without vitest's slow deep equality on big arrays. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}
