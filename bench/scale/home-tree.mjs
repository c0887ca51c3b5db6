#!/usr/bin/env node
// A home-folder-like tree for the scale benchmarks (issue 44): FILES files, 400 per folder,
// unicode names, mostly small files and a few of 3 MB, five folder levels above the files.
// Deterministic: content from an AES-256-CTR keystream under a fixed seed, structure from
// mulberry32, fixed mtimes; `modify` changes 1 % of the files the same way every time.
//   node bench/scale/home-tree.mjs make   <dir> [files=200000]
//   node bench/scale/home-tree.mjs modify <dir> [seed=1]
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

const PER_FOLDER = 400;
const BIG = 3 * 1000 * 1000;
const FIXED_MTIME = 1672531200; // 2023-01-01T00:00:00Z

function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function keystream(label, n) {
  const key = crypto.createHash('sha256').update(`home-tree:${label}`).digest();
  return crypto.createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(n));
}

// Folder names per level; a leaf folder's path is one name from each level (5·4·5·5 = 500
// leaves of 400 files = 200 000 files; fewer files use the first leaves).
const LEVELS = [
  ['Documents', 'Bilder', 'Música', 'Проекты', '写真'],
  ['2021', '2022 – Sommer', 'Été 2023', 'archive'],
  ['Rechnungen', 'naïve café', 'δοκιμή', 'Zürich', 'misc'],
  ['Ordner A', 'ordner-b', 'βήτα', 'ß-Straße', '📁 shared'],
  ['x', 'Ünïcödé', 'résumé', 'ĉiuj', 'файлы'],
];
const STEMS = ['notiz', 'photo', 'Brief', 'résumé', 'отчёт', 'メモ', 'ταξίδι', 'data', 'scan', 'draft 🙂'];
const EXTS = ['.txt', '.md', '.jpg', '.pdf', '.json', '.odt', ''];

function leaves(count) {
  const out = [];
  const walk = (level, prefix) => {
    if (out.length >= count) return;
    if (level === LEVELS.length) return void out.push(prefix);
    for (const n of LEVELS[level]) walk(level + 1, [...prefix, n]);
  };
  walk(0, []);
  return out;
}

/** The files of the tree: relative path, size and a content label, in a fixed order. */
export function plan(files) {
  const rnd = mulberry32(44);
  const folders = leaves(Math.ceil(files / PER_FOLDER));
  const out = [];
  for (let i = 0; i < files; i++) {
    const folder = folders[Math.floor(i / PER_FOLDER)];
    const name = `${STEMS[i % STEMS.length]}-${i}${EXTS[(i >>> 3) % EXTS.length]}`;
    // 32 B to 4 KiB, log-uniform (mean ~0.8 KiB); one file in 40 000 is 3 MB.
    const size = i % 40_000 === 39_999 ? BIG : Math.floor(32 * Math.exp(rnd() * Math.log(128)));
    out.push({ rel: path.join(...folder, name), size, label: `f${i}` });
  }
  return out;
}

function write(dir, f, label) {
  const p = path.join(dir, f.rel);
  fs.writeFileSync(p, keystream(label, f.size));
  fs.utimesSync(p, FIXED_MTIME, FIXED_MTIME);
}

function make(dir, files) {
  const done = path.join(dir, '.complete');
  const pristine = !fs.existsSync(path.join(dir, '.modified'));
  if (pristine && fs.existsSync(done) && fs.readFileSync(done, 'utf8') === String(files)) return console.log(`${dir}: present (${files} files)`);
  fs.rmSync(dir, { recursive: true, force: true });
  const list = plan(files);
  for (const d of new Set(list.map((f) => path.dirname(f.rel)))) fs.mkdirSync(path.join(dir, d), { recursive: true });
  let bytes = 0;
  for (const f of list) {
    write(dir, f, f.label);
    bytes += f.size;
  }
  fs.writeFileSync(done, String(files));
  console.log(`${dir}: ${files} files, ${(bytes / 1e6).toFixed(1)} MB`);
}

/** Rewrites 1 % of the files (new content and size, mtime now), chosen by `seed`. */
function modify(dir, seed) {
  const files = Number(fs.readFileSync(path.join(dir, '.complete'), 'utf8'));
  const list = plan(files);
  const rnd = mulberry32(seed);
  const k = Math.round(files * 0.01);
  for (let i = 0; i < k; i++) {
    const f = list[Math.floor(rnd() * list.length)];
    write(dir, { ...f, size: f.size + 16 }, `${f.label}:m${seed}`);
    fs.utimesSync(path.join(dir, f.rel), new Date(), new Date());
  }
  fs.writeFileSync(path.join(dir, '.modified'), String(seed));
  console.log(`${dir}: ${k} files changed (seed ${seed})`);
}

const [cmd, dir, arg] = process.argv.slice(2);
if (cmd === 'make' && dir) make(path.resolve(dir), Number(arg ?? 200_000));
else if (cmd === 'modify' && dir) modify(path.resolve(dir), Number(arg ?? 1));
else {
  console.error('usage: home-tree.mjs make <dir> [files] | modify <dir> [seed]');
  process.exit(2);
}
