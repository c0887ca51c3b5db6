import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { GoTime } from './go-time';
import { decodeSnapshot, encodeSnapshot, type Snapshot } from './snapshot';

const DIR = join(import.meta.dirname, '../../test/fixtures/data/restic-0.14/snapshots');
const text = (b: Uint8Array) => Buffer.from(b).toString();
const ID = (c: string) => c.repeat(64);

describe('snapshot files written by restic 0.14 (fixtures)', () => {
  it.each(readdirSync(DIR))('%s re-encodes byte for byte', (file) => {
    const bytes = readFileSync(join(DIR, file));
    const sn = decodeSnapshot(bytes);
    expect(text(encodeSnapshot(sn))).toBe(text(bytes));
    expect(sn.hostname).toBeTruthy();
  });
});

describe('encodeSnapshot', () => {
  const minimal: Snapshot = { time: GoTime.parse('2024-01-02T03:04:05.06+01:00'), tree: ID('a'), paths: ['/home/u'] };

  it('omits empty optional fields', () => {
    expect(text(encodeSnapshot(minimal))).toBe(`{"time":"2024-01-02T03:04:05.06+01:00","tree":"${ID('a')}","paths":["/home/u"]}`);
  });

  it('writes every field in Go struct order, summary included (restic 0.17)', () => {
    const t = GoTime.parse('2024-01-02T03:04:05Z');
    const full: Snapshot = {
      ...minimal,
      parent: ID('b'),
      hostname: 'h<1>',
      username: 'u',
      uid: 1000,
      gid: 100,
      excludes: ['*.tmp'],
      tags: ['a', 'b'],
      original: ID('c'),
      programVersion: 'restic 0.17.3',
      summary: {
        backupStart: t,
        backupEnd: t,
        filesNew: 1,
        filesChanged: 2,
        filesUnmodified: 3,
        dirsNew: 4,
        dirsChanged: 5,
        dirsUnmodified: 6,
        dataBlobs: 7,
        treeBlobs: 8,
        dataAdded: 9,
        dataAddedPacked: 10,
        totalFilesProcessed: 11,
        totalBytesProcessed: 12,
      },
    };
    const json =
      `{"time":"2024-01-02T03:04:05.06+01:00","parent":"${ID('b')}","tree":"${ID('a')}","paths":["/home/u"],` +
      `"hostname":"h\\u003c1\\u003e","username":"u","uid":1000,"gid":100,"excludes":["*.tmp"],"tags":["a","b"],` +
      `"original":"${ID('c')}","program_version":"restic 0.17.3","summary":{"backup_start":"2024-01-02T03:04:05Z",` +
      `"backup_end":"2024-01-02T03:04:05Z","files_new":1,"files_changed":2,"files_unmodified":3,"dirs_new":4,` +
      `"dirs_changed":5,"dirs_unmodified":6,"data_blobs":7,"tree_blobs":8,"data_added":9,"data_added_packed":10,` +
      `"total_files_processed":11,"total_bytes_processed":12}}`;
    expect(text(encodeSnapshot(full))).toBe(json);
    expect(text(encodeSnapshot(decodeSnapshot(json)))).toBe(json);
  });

  it.each([
    ['bad tree ID', { ...minimal, tree: 'xyz' }],
    ['year beyond 9999', { ...minimal, time: GoTime.fromUnix(253402300800) }],
    ['negative uid', { ...minimal, uid: -1 }],
  ])('rejects %s with BAD_SNAPSHOT', (_what, sn) => {
    expect(() => encodeSnapshot(sn)).toThrow(expect.objectContaining({ code: 'BAD_SNAPSHOT' }));
  });
});

describe('decodeSnapshot', () => {
  it('keeps rustic fields it does not know, and writes them only on request', () => {
    const json = `{"time":"2024-01-02T03:04:05Z","tree":"${ID('a')}","paths":["/x"],"label":"L","delete":"Never","tags":[]}`;
    const sn = decodeSnapshot(json);
    expect(sn.tags).toBeUndefined();
    expect(sn.unknown?.map(([k]) => k)).toEqual(['label', 'delete']);
    expect(text(encodeSnapshot(sn))).toBe(`{"time":"2024-01-02T03:04:05Z","tree":"${ID('a')}","paths":["/x"]}`);
    expect(text(encodeSnapshot(sn, { keepUnknown: true }))).toContain(',"label":"L","delete":"Never"}');
  });

  it('tolerates the trailing newline of a json.Encoder and null paths', () => {
    const sn = decodeSnapshot(`{"time":"2024-01-02T03:04:05Z","tree":"${ID('a')}","paths":null}\n`);
    expect(sn.paths).toEqual([]);
  });

  it.each([
    ['not JSON', '{"time":', /not valid JSON/],
    ['an array', '[]', /not a JSON object/],
    ['no time', `{"tree":"${ID('a')}","paths":[]}`, /no time/],
    ['bad time', `{"time":"now","tree":"${ID('a')}","paths":[]}`, /time/],
    ['no tree', '{"time":"2024-01-02T03:04:05Z","paths":[]}', /no tree/],
    ['bad tree', '{"time":"2024-01-02T03:04:05Z","tree":"abc","paths":[]}', /tree/],
    ['paths not strings', `{"time":"2024-01-02T03:04:05Z","tree":"${ID('a')}","paths":[1]}`, /paths/],
    ['summary not an object', `{"time":"2024-01-02T03:04:05Z","tree":"${ID('a')}","paths":[],"summary":3}`, /summary/],
    ['negative summary count', `{"time":"2024-01-02T03:04:05Z","tree":"${ID('a')}","paths":[],"summary":{"files_new":-1}}`, /files_new/],
  ])('rejects %s with BAD_SNAPSHOT', (_what, json, message) => {
    try {
      decodeSnapshot(json);
      expect.unreachable();
    } catch (e) {
      expect(isCairnError(e, 'BAD_SNAPSHOT')).toBe(true);
      expect((e as Error).message).toMatch(message);
    }
  });
});
