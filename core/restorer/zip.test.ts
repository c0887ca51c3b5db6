import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { crc32, crc32Combine, useWasmCrc32 } from './crc32';
import { ZipWriter, dosDateTime } from './zip';

function seeded(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

async function build(entries: { name: string; data?: Uint8Array; dir?: boolean; pieces?: number }[], forceZip64 = false): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const zip = new ZipWriter((c) => void chunks.push(c.slice()), { forceZip64 });
  const mtime = new Date(2023, 4, 17, 13, 45, 22);
  for (const e of entries) {
    if (e.dir) await zip.directory(e.name, { mtime });
    else {
      const d = e.data!;
      const step = Math.max(1, Math.ceil(d.length / (e.pieces ?? 1)));
      const parts = [];
      for (let i = 0; i < d.length; i += step) parts.push(d.subarray(i, i + step));
      await zip.file(e.name, { mtime, mode: 0o640 }, d.length, parts);
    }
  }
  await zip.finish();
  return Buffer.concat(chunks);
}

// Python's zipfile reads every entry and checks each CRC; prints name, size, mode, date.
const PY = `
import sys, zipfile, hashlib, json
z = zipfile.ZipFile(sys.argv[1])
out = []
for i in z.infolist():
    data = z.read(i)
    out.append([i.filename, i.file_size, hashlib.sha256(data).hexdigest(), i.external_attr >> 16, list(i.date_time)])
print(json.dumps(out))
`;

function inspect(zipBytes: Buffer): { py: [string, number, string, number, number[]][]; unzip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-'));
  try {
    const f = join(dir, 'a.zip');
    writeFileSync(f, zipBytes);
    const py = JSON.parse(execFileSync(PYTHON, ['-c', PY, f], { encoding: 'utf8', maxBuffer: 1 << 28 }));
    const unzip = execFileSync('unzip', ['-tq', f], { encoding: 'utf8', maxBuffer: 1 << 28 });
    return { py, unzip };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The pyenv shim costs ~1.5 s per start; Debian's python has zipfile too.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('crc32', () => {
  it('gives the same CRCs through hash-wasm once loaded, also continuing one', async () => {
    const data = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 31 + (i >> 9)) & 0xff);
    const js = [0, 5, 4095, 4096, 4097, 100_000, 200_000].map((n) => [crc32(data.subarray(0, n)), crc32(data.subarray(n), crc32(data.subarray(0, n)))]);
    await useWasmCrc32(); // stays loaded for the tests after this one
    const fast = [0, 5, 4095, 4096, 4097, 100_000, 200_000].map((n) => [crc32(data.subarray(0, n)), crc32(data.subarray(n), crc32(data.subarray(0, n)))]);
    expect(fast).toEqual(js);
    expect(crc32(data)).toBe(zlib.crc32(data));
  });

  it('joins the CRCs of two parts as the CRC of both (crc32Combine)', () => {
    const data = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 131 + (i >> 7)) & 0xff);
    for (const cut of [0, 1, 7, 8, 1000, 65_536, 299_999, 300_000]) {
      const a = data.subarray(0, cut);
      const b = data.subarray(cut);
      expect(crc32Combine(crc32(a), crc32(b), b.length), `cut at ${cut}`).toBe(crc32(data));
    }
    // Three parts, chained as the ZIP writer does from an empty start.
    let c = 0;
    for (const [s, e] of [
      [0, 10],
      [10, 200_000],
      [200_000, 300_000],
    ] as const)
      c = crc32Combine(c, crc32(data.subarray(s, e)), e - s);
    expect(c).toBe(crc32(data));
    // Eight parts of 1 MiB of zeros, and lengths past 2^32 (ZIP64 sizes): joining (A,B) then C
    // must equal joining A with (B,C), whose length is the sum.
    const z = crc32(new Uint8Array(1 << 20));
    let zeros = 0;
    for (let i = 0; i < 8; i++) zeros = crc32Combine(zeros, z, 1 << 20);
    expect(zeros).toBe(crc32(new Uint8Array(8 << 20)));
    const [A, B, C, n1, n2] = [0x12345678, 0x9abcdef0, 0x0badf00d, 2 ** 31 + 3, 2 ** 31 + 9];
    expect(crc32Combine(crc32Combine(A, B, n1), C, n2)).toBe(crc32Combine(A, crc32Combine(B, C, n2), n1 + n2));
  });

  it('matches zlib on the check value and on odd lengths', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    for (const n of [0, 1, 7, 8, 9, 63, 1000, 65537]) {
      const d = seeded(n, n + 3);
      expect(crc32(d)).toBe(zlib.crc32(d));
      // continuing across pieces gives the same value
      expect(crc32(d.subarray(n >> 1), crc32(d.subarray(0, n >> 1)))).toBe(zlib.crc32(d));
    }
  });
});

describe('ZipWriter', () => {
  const files = [
    { name: 'docs/', dir: true },
    { name: 'docs/readme.txt', data: new TextEncoder().encode('hello zip\n') },
    { name: 'docs/empty', data: new Uint8Array(0) },
    { name: 'docs/ünïcödé 名前.bin', data: seeded(70_000, 7), pieces: 5 },
    { name: 'big.bin', data: seeded(3 << 20, 11), pieces: 9 },
  ];

  for (const forceZip64 of [false, true]) {
    it(`is read back byte-exact by Python zipfile and unzip -t${forceZip64 ? ' (ZIP64 records)' : ''}`, async () => {
      const { py, unzip } = inspect(await build(files, forceZip64));
      expect(unzip).toContain('No errors detected');
      expect(py.map((e) => e[0])).toEqual(files.map((f) => f.name));
      for (const [i, f] of files.entries()) {
        const [, size, hash, mode, date] = py[i]!;
        if (f.dir) {
          expect(mode).toBe(0o040755);
          continue;
        }
        expect(size).toBe(f.data!.length);
        expect(hash).toBe(sha(f.data!));
        expect(mode).toBe(0o100640);
        expect(date).toEqual([2023, 5, 17, 13, 45, 22]);
      }
    });
  }

  it('switches the end records to ZIP64 past 65,534 entries', async () => {
    const many = Array.from({ length: 65_600 }, (_, i) => ({ name: `f${i}`, data: new Uint8Array([i & 0xff]) }));
    const bytes = await build(many);
    // ZIP64 end of central directory record signature present
    expect(bytes.indexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-'));
    try {
      writeFileSync(join(dir, 'a.zip'), bytes);
      const py = 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); n = z.namelist(); print(len(n), n[-1], z.read(n[-1])[0])';
      expect(execFileSync(PYTHON, ['-c', py, join(dir, 'a.zip')], { encoding: 'utf8' }).trim()).toBe(`65600 f65599 ${65599 & 0xff}`);
      expect(execFileSync('unzip', ['-tq', join(dir, 'a.zip')], { encoding: 'utf8' })).toContain('No errors detected');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the archive valid when an entry fails midway, and rethrows', async () => {
    const chunks: Uint8Array[] = [];
    const zip = new ZipWriter((c) => void chunks.push(c.slice()));
    const mtime = new Date(2020, 0, 1);
    await zip.file('ok.txt', { mtime }, 2, [new Uint8Array([1, 2])]);
    async function* broken() {
      yield new Uint8Array([9, 9, 9]);
      throw new Error('blob unreadable');
    }
    await expect(zip.file('bad.bin', { mtime }, 10, broken())).rejects.toThrow('blob unreadable');
    await zip.file('after.txt', { mtime }, 1, [new Uint8Array([5])]);
    await zip.finish();
    const { py, unzip } = inspect(Buffer.concat(chunks));
    expect(unzip).toContain('No errors detected');
    expect(py.map((e) => [e[0], e[1]])).toEqual([
      ['ok.txt', 2],
      ['bad.bin', 3],
      ['after.txt', 1],
    ]);
  });

  it.each([['../x'], ['a/../x'], ['/abs'], ['C:/win'], ['a\\..\\x'], ['a//b'], ['nul\0'], ['lnk/under'], ['dup']])(
    'refuses the entry name %j with INVALID_NAME and writes nothing for it',
    async (name) => {
      const chunks: Uint8Array[] = [];
      const zip = new ZipWriter((c) => void chunks.push(c.slice()));
      const mtime = new Date(2020, 0, 1);
      await zip.symlink('lnk', { mtime }, '/etc');
      await zip.file('dup', { mtime }, 1, [new Uint8Array([1])]);
      const before = Buffer.concat(chunks).length;
      await expect(zip.file(name, { mtime }, 1, [new Uint8Array([1])])).rejects.toMatchObject({ code: 'INVALID_NAME' });
      await expect(zip.directory(name, { mtime })).rejects.toMatchObject({ code: 'INVALID_NAME' });
      expect(Buffer.concat(chunks).length).toBe(before);
    },
  );

  it('takes names with dots and backslashes that stay inside the folder', async () => {
    const names = ['..x', 'x..', 'a/...', 'back\\slash', 'lnk2/x'];
    const { py, unzip } = inspect(await build(names.map((name) => ({ name, data: new Uint8Array(0) }))));
    expect(unzip).toContain('No errors detected');
    expect(py.map((e) => e[0])).toEqual(names);
  });

  it('clamps DOS dates before 1980', () => {
    expect(dosDateTime(new Date(1970, 0, 1))).toEqual({ time: 0, date: 33 });
  });
});
