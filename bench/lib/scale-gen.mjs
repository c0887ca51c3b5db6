// Generated trees for the scale section: deterministic (seeded), written once into a cache
// folder and reused; a `<dir>.done` file next to the tree marks it complete.
//   tiny:  N files of 10 random bytes in 5 folders (the kopia/restic comparison's layout)
//   home:  a home-folder-like mix: mostly small files in deep folders, unicode names, a few
//          large files (N files in all)
import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv } from 'node:crypto';

/** A seeded byte stream (AES-CTR keystream): the same seed gives the same bytes. */
function stream(seed) {
  const key = Buffer.alloc(32);
  key.write(String(seed));
  const c = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  let buf = Buffer.alloc(0);
  let at = 0;
  const bytes = (n) => {
    if (at + n > buf.length) {
      buf = c.update(Buffer.alloc(Math.max(n, 1 << 20)));
      at = 0;
    }
    const out = buf.subarray(at, at + n);
    at += n;
    return out;
  };
  const int = (n) => bytes(4).readUInt32LE(0) % n;
  return { bytes, int };
}

// A fixed mtime so the tree and its re-generation look the same to a change detector.
const MTIME = new Date('2026-01-01T00:00:00Z');

function writeTiny(dir, files) {
  const r = stream('tiny');
  const per = Math.ceil(files / 5);
  for (let d = 0; d < 5; d++) {
    const sub = path.join(dir, `dir${d}`);
    fs.mkdirSync(sub, { recursive: true });
    for (let i = d * per; i < Math.min(files, (d + 1) * per); i++) fs.writeFileSync(path.join(sub, `f${i}`), r.bytes(10));
  }
}

const WORDS = ['docs', 'Фото', 'src', '音楽', 'projects', 'notes', 'café', 'build', 'été', 'node_modules', 'Ελληνικά', 'cache', '😀 emoji', 'lib', 'data'];
const EXT = ['.txt', '.md', '.js', '.json', '.jpg', '.c', '.h', '.py', ''];

function writeHome(dir, files) {
  const r = stream('home');
  const large = Math.max(1, Math.round(files / 50000)); // a few large files: 1 per 50 000
  const folders = [];
  // Folders: ~20 files each on average, depth 1–12, unicode names.
  for (let i = 0; i < Math.ceil(files / 20); i++) {
    const depth = 1 + r.int(12);
    const parts = [];
    for (let k = 0; k < depth; k++) parts.push(`${WORDS[r.int(WORDS.length)]}${r.int(4)}`);
    folders.push(parts.join('/'));
  }
  for (const f of new Set(folders)) fs.mkdirSync(path.join(dir, f), { recursive: true });
  for (let i = 0; i < files; i++) {
    const folder = folders[r.int(folders.length)];
    const isLarge = i < large;
    // Small files: log-ish spread from 0 B to ~64 KiB, most under 4 KiB.
    const size = isLarge ? (32 << 20) + r.int(32 << 20) : Math.floor(2 ** (r.int(1700) / 100)) - 1;
    const name = `${WORDS[r.int(WORDS.length)]}-${i}${EXT[r.int(EXT.length)]}`;
    const p = path.join(dir, folder, name);
    if (size > 1 << 20) {
      const fd = fs.openSync(p, 'w');
      for (let left = size; left > 0; left -= 1 << 20) fs.writeSync(fd, r.bytes(Math.min(left, 1 << 20)));
      fs.closeSync(fd);
    } else fs.writeFileSync(p, r.bytes(size));
  }
}

export const SCALE_TREES = {
  tiny: { label: (n) => `${n} files × 10 B in 5 folders`, write: writeTiny },
  home: { label: (n) => `home-like: ${n} files, deep unicode folders, a few large files`, write: writeHome },
};

/** The tree `kind` with `files` files under `root`, generated on first use. */
export function ensureScaleTree(root, kind, files, log = () => {}) {
  const dir = path.join(root, `${kind}-${files}`);
  const done = `${dir}.done`;
  if (fs.existsSync(done)) return { dir, ...JSON.parse(fs.readFileSync(done, 'utf8')) };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  log(`scale: generating ${SCALE_TREES[kind].label(files)} into ${dir} ...`);
  const t0 = Date.now();
  SCALE_TREES[kind].write(dir, files);
  const info = { kind, files, label: SCALE_TREES[kind].label(files), ...treeSize(dir), generatedS: (Date.now() - t0) / 1000 };
  fs.writeFileSync(done, JSON.stringify(info));
  return { dir, ...info };
}

function treeSize(dir) {
  let files = 0;
  let dirs = 0;
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        dirs++;
        walk(p);
      } else {
        files++;
        const st = fs.statSync(p);
        bytes += st.size;
        fs.utimesSync(p, MTIME, MTIME);
      }
    }
  };
  walk(dir);
  return { fileCount: files, dirCount: dirs, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [root, kind, files] = process.argv.slice(2);
  console.log(ensureScaleTree(root, kind, Number(files), console.error));
}
