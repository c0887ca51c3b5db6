// Dedup check on D3 (a.bin, and b.bin = a.bin with 10 small edits).
//
// 1. How much the edited copy adds after the original, per tool, each in its own repository
//    (so each with its own random chunker polynomial: the numbers are comparable in size, not
//    byte for byte): restic a → restic b, cairn a → cairn b.
// 2. With a shared polynomial, the same blobs: a repository initialised by cairn gets a.bin from
//    one tool and is then copied; in one copy restic backs up b.bin, in the other cairn does.
//    Same polynomial and same starting state, so both must add exactly the same blobs; and
//    backing b.bin up once more with the other tool must add nothing. Done both ways round
//    (a.bin from restic, a.bin from cairn).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { PASSWORD } from './tools.mjs';

/** The data blob IDs of a repository, as restic lists them. */
function dataBlobs(cfg, url) {
  const out = execFileSync(cfg.restic, ['-r', url, 'list', 'blobs', '--no-cache', '-q'], {
    env: { ...process.env, RESTIC_PASSWORD: PASSWORD },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return new Set(
    out
      .split('\n')
      .filter((l) => l.startsWith('data '))
      .map((l) => l.slice(5)),
  );
}

export async function runDedup(cfg, { datasets, restic, cairn, log }) {
  const ds = datasets.d3;
  const a = path.join(ds.dir, 'a.bin');
  const b = path.join(ds.dir, 'b.bin');
  const bSize = fs.statSync(b).size;
  const made = [];
  const repo = (name) => {
    const r = { url: path.join(cfg.scratch, `dedup-${name}`), cacheDir: path.join(cfg.scratch, `dedup-cache-${name}`) };
    made.push(r);
    fs.rmSync(r.url, { recursive: true, force: true });
    fs.rmSync(r.cacheDir, { recursive: true, force: true });
    return r;
  };
  const added = async (tool, r, file) => {
    const s = (await tool.backup(r, file)).summary;
    return { tool: tool.name, file: path.basename(file), blobs: s.data_blobs, bytes: s.data_added, pct: (100 * s.data_added) / bSize };
  };
  const result = { bSize, edits: JSON.parse(fs.readFileSync(path.join(path.dirname(ds.dir), 'd3-edits.json'), 'utf8')).length };
  try {
    // 1. each tool on its own
    for (const tool of [restic, cairn]) {
      const r = repo(tool.name);
      await tool.init(r);
      const first = await added(tool, r, a);
      result[tool.name] = { a: first, b: await added(tool, r, b) };
    }
    // 2. shared polynomial
    result.shared = [];
    for (const first of [restic, cairn]) {
      const base = repo(`${first.name}-a`);
      await cairn.init(base);
      await added(first, base, a);
      const copies = {};
      for (const tool of [restic, cairn]) {
        const r = repo(`${first.name}-a-${tool.name}-b`);
        fs.cpSync(base.url, r.url, { recursive: true });
        copies[tool.name] = { r, b: await added(tool, r, b) };
      }
      // the same data blobs, by ID, in both copies
      const ids = { restic: dataBlobs(cfg, copies.restic.r.url), cairn: dataBlobs(cfg, copies.cairn.r.url) };
      const sameIds = ids.restic.size === ids.cairn.size && [...ids.restic].every((id) => ids.cairn.has(id));
      // once more, with the other tool: every blob of b.bin is there already
      const again = {
        restic: await added(cairn, copies.restic.r, b),
        cairn: await added(restic, copies.cairn.r, b),
      };
      result.shared.push({
        aFrom: first.name,
        resticB: copies.restic.b,
        cairnB: copies.cairn.b,
        // data_added also counts tree blobs, whose JSON may differ between the tools; the data
        // blobs are compared by ID
        sameBlobs: copies.restic.b.blobs === copies.cairn.b.blobs && sameIds,
        dataBlobsInRepo: ids.restic.size,
        cairnAfterResticB: again.restic,
        resticAfterCairnB: again.cairn,
        crossAddsNothing: again.restic.blobs === 0 && again.cairn.blobs === 0,
      });
    }
  } finally {
    for (const r of made) {
      fs.rmSync(r.url, { recursive: true, force: true });
      fs.rmSync(r.cacheDir, { recursive: true, force: true });
    }
  }
  const rb = result.restic.b;
  const cb = result.cairn.b;
  result.summary = {
    resticAddsForB: rb,
    cairnAddsForB: cb,
    // separate repositories, separate polynomials: "about the same" is what can be asked
    aboutTheSame: Math.abs(rb.pct - cb.pct) <= Math.max(1, 0.25 * rb.pct),
    sharedPolynomialSameBlobs: result.shared.every((x) => x.sameBlobs && x.crossAddsNothing),
  };
  log(
    `dedup D3: b.bin adds restic ${rb.blobs} blobs ${(rb.bytes / 1e6).toFixed(2)} MB (${rb.pct.toFixed(2)} %), cairn ${cb.blobs} blobs ${(cb.bytes / 1e6).toFixed(2)} MB (${cb.pct.toFixed(2)} %); ` +
      `shared polynomial: ${result.summary.sharedPolynomialSameBlobs ? 'same blobs' : 'DIFFERENT blobs'}`,
  );
  return result;
}

export function renderDedup(d) {
  if (!d) return '';
  if (d.error) return `\nDedup check (D3): FAILED: ${d.error}`;
  const add = (x) => `+${x.blobs} blobs, ${(x.bytes / 1e6).toFixed(2)} MB (${x.pct.toFixed(2)} % of b.bin)`;
  const lines = [
    '',
    `Dedup check (D3: b.bin = a.bin with ${d.edits} small edits, ${(d.bSize / 2 ** 20).toFixed(0)} MiB; local repositories; added = new data blobs and data_added (incl. trees) of the b.bin backup):`,
    `  own repository each:  restic a → restic b: ${add(d.restic.b)}   cairn a → cairn b: ${add(d.cairn.b)}   → ${d.summary.aboutTheSame ? 'about the same' : 'NOT about the same'}`,
  ];
  for (const s of d.shared) {
    lines.push(
      `  shared polynomial, a.bin by ${s.aFrom.padEnd(6)}: then b.bin by restic ${add(s.resticB)}, by cairn ${add(s.cairnB)} → data blob IDs ${s.sameBlobs ? `identical (${s.dataBlobsInRepo})` : 'DIFFERENT'}; ` +
        `re-backup of b.bin by the other tool adds ${s.cairnAfterResticB.blobs} / ${s.resticAfterCairnB.blobs} blobs`,
    );
  }
  lines.push(
    `  → ${d.summary.sharedPolynomialSameBlobs ? 'with a shared polynomial both tools cut and name exactly the same blobs' : 'the tools produce DIFFERENT blobs with a shared polynomial'}`,
  );
  return lines.join('\n');
}
