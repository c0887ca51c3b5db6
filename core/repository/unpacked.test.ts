import { beforeAll, describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, resticFile, resticFixture } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { compress } from '../compress';
import { Key } from '../crypto/keys';
import { open } from '../crypto/seal';
import { decodeUnpackedPlain, encodeUnpackedPlain, parseJSON } from './unpacked';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('unpacked files', () => {
  beforeAll(initEngine);
  const json = JSON.stringify({ packs: Array.from({ length: 50 }, (_, i) => ({ id: String(i).padStart(64, '0'), blobs: [] })) });

  it('v2 writes 0x02 || one zstd frame; v1 writes the JSON as is', () => {
    const v2 = encodeUnpackedPlain(json, 2);
    expect(v2[0]).toBe(2);
    expect([...v2.subarray(1, 5)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]); // zstd magic
    expect(v2.length).toBeLessThan(json.length);
    expect(text(decodeUnpackedPlain(v2, 'index', 'BAD_INDEX'))).toBe(json);
    const v1 = encodeUnpackedPlain(json, 1);
    expect(text(v1)).toBe(json);
    expect(text(decodeUnpackedPlain(v1, 'index', 'BAD_INDEX'))).toBe(json);
    expect(text(decodeUnpackedPlain(encodeUnpackedPlain(bytes(json), 2), 'x', 'BAD_INDEX'))).toBe(json);
  });

  it("reads v1-style raw JSON in a v2 repository: objects and the legacy index's arrays", () => {
    expect(text(decodeUnpackedPlain(bytes('{"a":1}'), 'x', 'BAD_INDEX'))).toBe('{"a":1}');
    expect(text(decodeUnpackedPlain(bytes('[1]'), 'x', 'BAD_INDEX'))).toBe('[1]');
  });

  it.each([
    ['empty plaintext', new Uint8Array(0)],
    ['version byte 1', Uint8Array.of(1, 0x7b, 0x7d)],
    ['version byte 3', Uint8Array.of(3, 0x28, 0xb5, 0x2f, 0xfd)],
    ['leading whitespace', bytes(' {}')],
  ])("refuses %s as an unsupported encoding, with the caller's code", (_what, plain) => {
    const e = errorOf(() => decodeUnpackedPlain(plain, 'snapshot 12345678', 'BAD_SNAPSHOT'));
    expect(isCairnError(e, 'BAD_SNAPSHOT')).toBe(true);
    expect((e as Error).message).toMatch(/^snapshot 12345678: unsupported encoding format/);
  });

  it("a corrupt or truncated zstd body is an error with the caller's code", () => {
    const good = encodeUnpackedPlain(json, 2);
    for (const bad of [good.subarray(0, good.length - 5), Uint8Array.of(2, ...seededBytes(1, 100)), Uint8Array.of(2)]) {
      const e = errorOf(() => decodeUnpackedPlain(bad, 'index ab', 'BAD_INDEX'));
      expect(isCairnError(e, 'BAD_INDEX')).toBe(true);
      expect((e as Error).message).toMatch(/^index ab: does not decompress: (not a zstd frame|zstd frame is corrupt)/);
    }
  });

  it("parseJSON accepts a trailing newline and refuses invalid UTF-8 or syntax with the caller's code", () => {
    expect(parseJSON(bytes('{"a":[1,2]}\n'), 'x', 'BAD_INDEX')).toEqual({ a: [1, 2] });
    for (const bad of [Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d), bytes('{"a":'), bytes('')]) {
      const e = errorOf(() => parseJSON(bad, 'snapshot 1', 'BAD_SNAPSHOT'));
      expect(isCairnError(e, 'BAD_SNAPSHOT')).toBe(true);
    }
  });

  it('reads the snapshot and index files restic 0.14 wrote (with and without a frame content size)', async () => {
    const fx = resticFixture();
    const key = Key.fromJSON(fx.masterkey);
    // Frame header descriptor (byte 5 after the 0x02): top two bits = Frame_Content_Size_flag,
    // 0x20 = single segment. klauspost wrote the small snapshot without a size (0x00), the
    // index with a 2-byte one (0x40).
    const cases = [
      [`snapshots/${fx.snapshotID}`, fx.snapshot, 0x00],
      [`index/${fx.indexID}`, fx.index, 0x40],
    ] as const;
    for (const [path, expected, descriptor] of cases) {
      const plain = await open(key, resticFile(path));
      expect(plain[0]).toBe(2);
      expect(plain[5]! & 0xe0).toBe(descriptor);
      expect(parseJSON(decodeUnpackedPlain(plain, path, 'BAD_INDEX'), path, 'BAD_INDEX')).toEqual(expected);
    }
  });

  it('our frames carry a content size and our zstd agrees with the frame we compress directly', () => {
    const v2 = encodeUnpackedPlain(json, 2);
    expect(Buffer.compare(Buffer.from(v2.subarray(1)), Buffer.from(compress(bytes(json))))).toBe(0);
  });
});
