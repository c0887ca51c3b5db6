// The prune phase (issue 34): ten more snapshots, each after a 1 % change of the dataset (the
// same changes for every tool, untimed backups), then `forget --keep-last 3 --prune`, timed.
// restic and cairn run exactly that. The dataset is put back afterwards.
//   prune       each tool in its own repository (what its own backups left: cairn's backups
//               lay packs out differently, so there is not the same work to do)
//   prune-same  each tool on a copy of restic's repository (local target only): the same work
import fs from 'node:fs';
import path from 'node:path';
import { dirBytes } from './measure.mjs';

const SNAPSHOTS = 10;
const KEEP = 3;
const PRUNE_SEED = 7000;

/** Runs the phase for every tool with a `prune` method (the browser column has none). */
export async function runPrunePhase({ cfg, target, ds, dsName, rep, order, state, step, timedOpts, runMod, log }) {
  const tools = order.filter((t) => t.prune && state.get(t).ok);
  if (tools.length === 0) return;
  const saves = [];
  try {
    for (let i = 0; i < SNAPSHOTS; i++) {
      const save = path.join(cfg.dataDir, `.prune-mod-${dsName}-${i}`);
      runMod('modify', ds.dir, save, PRUNE_SEED + rep * 100 + i);
      saves.push(save);
      for (const tool of tools) {
        const st = state.get(tool);
        if (st.ok) await tool.backup(st.repo, ds.dir, {}).catch((e) => log(`  prune     ${tool.name.padEnd(8)} backup ${i + 1} failed: ${e.message}`));
      }
    }
  } finally {
    for (const save of saves.reverse()) runMod('revert', ds.dir, save);
  }
  if (target === 'local') await pruneSame({ cfg, tools, state, step, timedOpts });
  for (const tool of tools) {
    let before;
    await step(
      'prune',
      tool,
      async (st) => {
        before = (await st.repo.size()).bytes;
        return tool.prune(st.repo, KEEP, timedOpts(tool));
      },
      async (st) => {
        const after = (await st.repo.size()).bytes;
        return { bytes: 0, files: 0, repoBytes: after, note: `repo ${(before / 1e6).toFixed(1)} → ${(after / 1e6).toFixed(1)} MB` };
      },
    );
  }
}

/** Every tool prunes its own copy of restic's repository (before anyone forgot anything). */
async function pruneSame({ cfg, tools, state, step, timedOpts }) {
  const restic = tools.find((t) => t.name === 'restic');
  if (!restic || !state.get(restic).ok) return;
  const source = state.get(restic).repo.url;
  for (const tool of tools) {
    const dir = path.join(cfg.scratch, `prune-same-${tool.name}`);
    const repo = { url: dir, cacheDir: `${dir}-cache`, size: async () => dirBytes(dir) };
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(repo.cacheDir, { recursive: true, force: true });
    fs.cpSync(source, dir, { recursive: true });
    let before;
    try {
      await step(
        'prune-same',
        tool,
        async () => {
          before = (await repo.size()).bytes;
          return tool.prune(repo, KEEP, timedOpts(tool));
        },
        async () => {
          const after = (await repo.size()).bytes;
          return { bytes: 0, files: 0, repoBytes: after, note: `repo ${(before / 1e6).toFixed(1)} → ${(after / 1e6).toFixed(1)} MB` };
        },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(repo.cacheDir, { recursive: true, force: true });
    }
  }
}
