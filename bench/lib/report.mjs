// Medians, ratios against restic, the goals of issue 5, and the printed table.
//
// Ratios are always <other tool> ÷ restic for the same column:
//   wall s, peak RSS, CPU s, repository bytes: lower is better, so ×<1 favours cairn;
//   MB/s, files/s: higher is better, so ×>1 favours cairn.
import { DATASET_LABELS } from './datasets.mjs';
import { machineLine } from './machine.mjs';

const median = (xs) => {
  const s = xs.filter((x) => x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stat = (xs) => {
  const v = xs.filter((x) => x !== undefined && Number.isFinite(x));
  if (v.length === 0) return undefined;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length };
};

export const PHASE_LABELS = {
  backup: 'first backup',
  open: 'open (cat config)',
  unchanged: 'unchanged re-backup',
  changed: 're-backup after 1 % change',
  restore: 'restore',
  zip: 'snapshot as ZIP',
  check: 'check --read-data',
  'check-subset': 'check --read-data-subset 10%',
  prune: 'forget --keep-last 3 --prune after 10×1 %',
  'prune-same': 'the same, both on a copy of restic’s repository',
};

/** Groups raw rows into cells: { target, dataset, phase, tool, wall, mbps, fps, rss, cpu, bg, repoBytes, … } */
export function summarize(rows) {
  const groups = new Map();
  for (const r of rows) {
    const k = `${r.target}|${r.dataset}|${r.phase}|${r.tool}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const cells = [];
  for (const [k, rs] of groups) {
    const [target, dataset, phase, tool] = k.split('|');
    const ok = rs.filter((r) => !r.error);
    cells.push({
      target,
      dataset,
      phase,
      tool,
      runs: ok.length,
      errors: rs.filter((r) => r.error).map((r) => r.error),
      wall: stat(ok.map((r) => r.wall)),
      mbps: stat(ok.map((r) => (r.bytes > 0 ? r.bytes / 1e6 / r.wall : undefined))),
      fps: stat(ok.map((r) => (r.files > 0 ? r.files / r.wall : undefined))),
      rss: stat(ok.map((r) => r.peakRss)),
      pageRss: stat(ok.map((r) => r.peakPageRss)),
      pageProcess: stat(ok.map((r) => r.peakPageProcess)),
      cpu: stat(ok.map((r) => (r.user ?? NaN) + (r.sys ?? NaN))),
      bg: stat(ok.map((r) => (r.background === undefined ? undefined : r.background / r.wall))),
      repoBytes: stat(ok.map((r) => r.repoBytes)),
      dataAdded: stat(ok.map((r) => r.dataAdded)),
      filesRead: stat(ok.map((r) => r.filesRead)),
      restoreMismatch: ok.find((r) => r.restoreMismatch)?.restoreMismatch,
    });
  }
  // ratios against restic in the same target / dataset / phase
  for (const c of cells) {
    if (c.tool === 'restic') continue;
    const base = cells.find((b) => b.tool === 'restic' && b.target === c.target && b.dataset === c.dataset && b.phase === c.phase);
    if (!base) continue;
    const r = (a, b) => (a?.median !== undefined && b?.median ? a.median / b.median : undefined);
    c.ratio = {
      wall: r(c.wall, base.wall),
      mbps: r(c.mbps, base.mbps),
      fps: r(c.fps, base.fps),
      rss: r(c.rss, base.rss),
      cpu: r(c.cpu, base.cpu),
      repoBytes: r(c.repoBytes, base.repoBytes),
    };
  }
  return cells;
}

/** The targets of issue 5: reported, never asserted. */
export const GOALS = [
  {
    id: 'node-d1-backup',
    text: 'cairn (Node) ≥ 1.2× restic MB/s on D1 first backup',
    tool: 'cairn',
    datasets: ['d1'],
    phase: 'backup',
    metric: 'mbps',
    op: '>=',
    need: 1.2,
  },
  {
    id: 'node-d2-files',
    text: 'cairn (Node) ≥ 1.0× restic files/s on D2 first backup',
    tool: 'cairn',
    datasets: ['d2'],
    phase: 'backup',
    metric: 'fps',
    op: '>=',
    need: 1.0,
  },
  {
    id: 'unchanged',
    text: 'unchanged re-backup no slower than restic (time ×≤ 1.0)',
    tool: 'cairn',
    datasets: ['d1', 'd2', 'd3', 'd4'],
    phase: 'unchanged',
    metric: 'wall',
    op: '<=',
    need: 1.0,
  },
  {
    id: 'restore',
    text: 'restore ≥ restic (MB/s ×≥ 1.0)',
    tool: 'cairn',
    datasets: ['d1', 'd2', 'd3', 'd4'],
    phase: 'restore',
    metric: 'mbps',
    op: '>=',
    need: 1.0,
  },
  {
    id: 'repo-size',
    text: "repository size ≤ restic's after the first backup (×≤ 1.0)",
    tool: 'cairn',
    datasets: ['d1', 'd2', 'd3', 'd4'],
    phase: 'backup',
    metric: 'repoBytes',
    op: '<=',
    need: 1.0,
  },
  {
    id: 'browser-d1-backup',
    text: 'cairn in Chromium ≥ 1.0× restic MB/s on D1 first backup',
    tool: 'chromium',
    datasets: ['d1'],
    phase: 'backup',
    metric: 'mbps',
    op: '>=',
    need: 1.0,
  },
];

export function evaluateGoals(cells) {
  const out = [];
  for (const g of GOALS) {
    for (const c of cells) {
      if (c.tool !== g.tool || c.phase !== g.phase || !g.datasets.includes(c.dataset)) continue;
      const ratio = c.ratio?.[g.metric];
      if (ratio === undefined) continue;
      const pass = g.op === '>=' ? ratio >= g.need : ratio <= g.need;
      out.push({ goal: g.id, text: g.text, target: c.target, dataset: c.dataset, tool: c.tool, metric: g.metric, ratio, need: g.need, op: g.op, pass });
      c.goals = [...(c.goals ?? []), { goal: g.id, metric: g.metric, pass }];
    }
  }
  return out;
}

const fmt = (x, d = 2) => (x === undefined || !Number.isFinite(x) ? '–' : x >= 1000 ? x.toFixed(0) : x >= 100 ? x.toFixed(d > 1 ? 1 : d) : x.toFixed(d));
const rx = (x, d = 2) => (x === undefined ? '' : ` ×${x.toFixed(d)}`);
const mark = (c, metric) => {
  const g = c.goals?.find((x) => x.metric === metric);
  return g ? (g.pass ? ' ✓' : ' ✗') : '';
};

function pad(s, n, right = false) {
  const len = [...s].length;
  return right ? ' '.repeat(Math.max(0, n - len)) + s : s + ' '.repeat(Math.max(0, n - len));
}

/** The one printed table. */
export function renderTable({ cells, machine, datasets, meta, goals, unavailable }) {
  const lines = [];
  lines.push(`Machine: ${machineLine(machine)}`);
  lines.push(
    `Runs: median of ${meta.runs} [min–max] per cell, tools alternating per repetition · scale ${meta.scale}${meta.scale === 1 ? ' (real D1–D4)' : ' (scaled variant)'} · ` +
      `page cache ${meta.dropCaches ? 'dropped before every timed command (tool binaries re-read)' : 'WARM (could not drop it)'} · ${meta.date}`,
  );
  lines.push(
    'Ratios ×: other tool ÷ restic in the same column. wall s, RSS, CPU s, repo MB: lower is better (×<1 favours cairn). MB/s, files/s: higher is better (×>1 favours cairn).',
  );
  if (cells.some((c) => c.pageRss?.median !== undefined))
    lines.push(
      "Chromium memory: summed PSS of all its processes (shared pages counted once); in brackets the page's renderer process alone (the page, its engine and saver workers), then all renderers (adding Chromium's own interface renderer and its spare one).",
    );
  lines.push(
    'MB = 10^6 bytes. MB/s and files/s = dataset bytes/files ÷ wall (check: repository bytes ÷ wall; check-subset: a tenth of them). CPU s = user+sys of the tool. bg = other load on the machine (cores) during the run.',
  );
  for (const u of unavailable ?? []) lines.push(`Not measured: ${u}`);
  const header = ['phase', 'tool', 'wall s [min–max]', 'MB/s', 'files/s', 'peak RSS MiB', 'CPU s', 'repo MB', 'bg'];
  const targets = [...new Set(cells.map((c) => c.target))];
  for (const target of targets) {
    for (const ds of [...new Set(cells.filter((c) => c.target === target).map((c) => c.dataset))]) {
      const d = datasets[ds];
      lines.push('');
      lines.push(
        `── ${target === 's3' ? 'S3 (local radosgw)' : 'local repository'} · ${DATASET_LABELS[ds]} · ${(d.bytes / 1e6).toFixed(1)} MB, ${d.files} files, ${d.dirs} dirs`,
      );
      const rows = [header];
      for (const phase of Object.keys(PHASE_LABELS)) {
        const pcs = cells
          .filter((c) => c.target === target && c.dataset === ds && c.phase === phase)
          .sort((a, b) => (a.tool === 'restic' ? -1 : b.tool === 'restic' ? 1 : a.tool.localeCompare(b.tool)));
        pcs.forEach((c, i) => {
          const label = i === 0 ? PHASE_LABELS[phase] : '';
          if (c.runs === 0) {
            rows.push([label, c.tool, `FAILED: ${c.errors[0]?.slice(0, 90)}`, '', '', '', '', '', '']);
            return;
          }
          const r = c.ratio ?? {};
          rows.push([
            label,
            c.tool,
            `${fmt(c.wall.median)} [${fmt(c.wall.min)}–${fmt(c.wall.max)}]${rx(r.wall)}${mark(c, 'wall')}`,
            c.mbps ? `${fmt(c.mbps.median, 1)}${rx(r.mbps)}${mark(c, 'mbps')}` : '–',
            c.fps ? `${fmt(c.fps.median, 0)}${rx(r.fps)}${mark(c, 'fps')}` : '–',
            `${fmt(c.rss.median / 2 ** 20, 0)}${rx(r.rss)}${c.pageRss?.median !== undefined ? ` (page ${c.pageProcess?.median !== undefined ? `${fmt(c.pageProcess.median / 2 ** 20, 0)}, renderers ` : ''}${fmt(c.pageRss.median / 2 ** 20, 0)})` : ''}`,
            c.cpu ? `${fmt(c.cpu.median, 1)}${rx(r.cpu)}` : '–',
            c.repoBytes ? `${fmt(c.repoBytes.median / 1e6, 1)}${rx(r.repoBytes, 3)}${mark(c, 'repoBytes')}` : '',
            c.bg ? fmt(c.bg.median, 2) : '–',
          ]);
          if (c.restoreMismatch) rows.push(['', '', `  RESTORE MISMATCH: ${c.restoreMismatch}`, '', '', '', '', '', '']);
          if (c.errors.length) rows.push(['', '', `  ${c.errors.length} failed run(s): ${c.errors[0].slice(0, 90)}`, '', '', '', '', '', '']);
        });
      }
      const widths = header.map((_, i) => Math.max(...rows.map((row) => [...(row[i] ?? '')].length)));
      for (const row of rows)
        lines.push(
          '  ' +
            row
              .map((v, i) => pad(v ?? '', widths[i], i >= 3))
              .join('  ')
              .trimEnd(),
        );
    }
  }
  if (goals?.length) {
    lines.push('');
    lines.push('Goals (issue 5; reported, not asserted):');
    const byGoal = new Map();
    for (const g of goals) {
      if (!byGoal.has(g.goal)) byGoal.set(g.goal, []);
      byGoal.get(g.goal).push(g);
    }
    for (const [, gs] of byGoal) {
      lines.push(`  ${gs[0].text}`);
      for (const g of gs)
        lines.push(
          `    ${g.pass ? '✓' : '✗'} ${g.target.padEnd(5)} ${g.dataset}: ×${g.ratio.toFixed(g.metric === 'repoBytes' ? 3 : 2)} (need ${g.op} ${g.need})`,
        );
    }
  }
  return lines.join('\n');
}

export function renderMicro(micro) {
  if (!micro) return '';
  const lines = ['', 'Micro-benchmarks: per-byte stages on one core (MB/s, median; 1 MiB messages like an average chunk)'];
  const node = micro.node?.results ?? [];
  const chrome = micro.chromium?.results ?? [];
  const names = [...new Set([...node.map((r) => r.stage), ...chrome.map((r) => r.stage)])];
  const rows = [['stage', 'Node cpu', 'Node wall', 'Chromium worker', 'native reference']];
  for (const n of names) {
    const a = node.find((r) => r.stage === n);
    const b = chrome.find((r) => r.stage === n);
    const ref = micro.native?.find((x) => x.stage === n);
    rows.push([
      n,
      a?.cpu ? fmt(a.cpu, 0) : '–',
      a ? fmt(a.wall, 0) : '–',
      b ? fmt(b.wall, 0) : micro.chromium?.error ? 'error' : '–',
      ref ? `${fmt(ref.mbps, 0)} ${ref.tool}` : '',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...r[i]].length)));
  for (const r of rows)
    lines.push(
      '  ' +
        r
          .map((v, i) => pad(v, widths[i], i > 0 && i < 4))
          .join('  ')
          .trimEnd(),
    );
  if (micro.chromium?.error) lines.push(`  Chromium: ${micro.chromium.error}`);
  if (micro.slowest) lines.push(`  Slowest per-byte stage on the backup path (Node, per core): ${micro.slowest}`);
  return lines.join('\n');
}
