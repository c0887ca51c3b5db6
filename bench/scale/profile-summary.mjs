#!/usr/bin/env node
// Summarises a CPU profile of the app's engine worker (bench/scale/app-open.mjs SCALE_PROFILE):
// self and inclusive time per function, minified frames mapped back to sources through the
// build's source maps (dist/app/assets/*.map).
//   node bench/scale/profile-summary.mjs <file.cpuprofile> [dist/app]
import fs from 'node:fs';
import path from 'node:path';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';

const [file, dist = 'dist/app'] = process.argv.slice(2);
const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
const maps = new Map();
function where(cf) {
  const base = cf.url.split('/').pop();
  const mapFile = path.join(dist, 'assets', base + '.map');
  if (!base || !fs.existsSync(mapFile)) return `${cf.functionName || '(anonymous)'} ${base}:${cf.lineNumber + 1}`;
  if (!maps.has(mapFile)) maps.set(mapFile, new TraceMap(fs.readFileSync(mapFile, 'utf8')));
  const o = originalPositionFor(maps.get(mapFile), { line: cf.lineNumber + 1, column: cf.columnNumber });
  return `${o.name ?? cf.functionName ?? '(anonymous)'} ${o.source?.replace(/^(\.\.\/)+/, '')}:${o.line}`;
}
const dt = new Map();
for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const keyOf = new Map();
const key = (n) => keyOf.get(n.id) ?? (keyOf.set(n.id, where(n.callFrame)), keyOf.get(n.id));
const self = new Map();
const incl = new Map();
for (const n of prof.nodes) {
  const t = dt.get(n.id) ?? 0;
  if (!t) continue;
  self.set(key(n), (self.get(key(n)) ?? 0) + t);
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + t);
  }
}
const total = (prof.endTime - prof.startTime) / 1e6;
const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0) / 1e6;
console.log(`${total.toFixed(2)} s profiled, engine busy ${(total - idle).toFixed(2)} s`);
const top = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join('\n');
console.log('by self time:\n' + top(self, 25));
console.log('by inclusive time:\n' + top(incl, 45));
