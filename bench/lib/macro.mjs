// The side-by-side runs. Per target (local, s3), dataset and repetition, each phase runs for
// every tool before the next phase starts, and the tool order flips every repetition, so drift
// (thermal, host noise, a busy disk) hits all tools alike:
//   backup     first backup into a fresh repository (init untimed)
//   open       `cat config` after that backup: process start, key derivation, opening
//              (restic and cairn both derive the key with real scrypt parameters each command)
//   unchanged  re-backup of the same data (parent snapshot found by host + path)
//   changed    re-backup after ../shared/bench/mod.mjs changed 1 % of the files (same change
//              for every tool in a repetition; reverted afterwards). Skipped where 1 % of the
//              files rounds to zero (D3: 2 files, D4: 1 file).
//   restore    restore of the first snapshot into an empty directory (file count and bytes
//              checked afterwards)
//   zip        the first snapshot as one ZIP archive, thrown away: `restic dump --archive zip
//              <id> /` to /dev/null; in Chromium the app's streamed download (the engine's
//              producer and its pull protocol, without the service worker and the disk); the
//              Node CLI has no `dump`
//   check      check --read-data
//   check-subset  check --read-data-subset 10% (a random tenth of the packs, as restic picks them)
//   prune      ten more snapshots after 1 % changes (untimed), then forget --keep-last 3 --prune
//              (lib/prune.mjs); locally
//              also every tool on a copy of restic's repository (prune-same)
// The page cache is dropped before every timed command when allowed, then the tool's own
// binaries are read back in, so data and repository start cold and the program does not.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { SHARED_BENCH } from './config.mjs';
import { walkFiles } from './datasets.mjs';
import { dirBytes, waitForQuiet } from './measure.mjs';
import { deletePrefix, prefixBytes } from './s3.mjs';
import { warm } from './tools.mjs';
import { runPrunePhase } from './prune.mjs';

const MOD_SEED = 5000;

function filesAfterMod(ds) {
  return Math.round(ds.files * 0.01);
}

/** Repository handle for a tool: where it lives and how to measure or delete it. */
function repoFor(cfg, s3, target, tool, dsName, rep) {
  const tag = `${tool.name}-${dsName}-r${rep}`;
  if (tool.repoFor) return tool.repoFor(target, tag);
  const cacheDir = path.join(cfg.scratch, `cache-${target}-${tag}`);
  if (target === 'local') {
    const dir = path.join(cfg.scratch, `repo-${tag}`);
    return {
      url: dir,
      cacheDir,
      size: async () => dirBytes(dir),
      remove: async () => {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.rmSync(cacheDir, { recursive: true, force: true });
      },
    };
  }
  const prefix = `${tag}-${Date.now().toString(36)}`;
  return {
    url: `s3:${s3.env.endpoint}/${s3.env.bucket}/${prefix}`,
    cacheDir,
    size: () => prefixBytes(s3.env, prefix),
    remove: async () => {
      await deletePrefix(s3.env, prefix);
      fs.rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

function runMod(cmd, dir, save, seed) {
  const args = cmd === 'modify' ? ['modify', dir, String(seed), save] : ['revert', dir, save];
  const r = spawnSync(process.execPath, [path.join(SHARED_BENCH, 'mod.mjs'), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mod.mjs ${cmd} failed: ${r.stderr}`);
  return r.stdout.trim();
}

function checkRestored(targetDir, ds, restored) {
  let files = 0;
  let bytes = 0;
  if (restored) ({ files, bytes } = restored);
  else {
    for (const f of walkFiles(targetDir)) {
      files++;
      bytes += f.st.size;
    }
  }
  return files === ds.files && bytes === ds.bytes ? undefined : `restored ${files} files / ${bytes} bytes, expected ${ds.files} / ${ds.bytes}`;
}

/**
 * Runs the matrix; calls record(row) for every timed command (rows carry raw numbers; the
 * report computes medians). tools: { local: [tool…], s3: [tool…] } (already filtered to what works).
 */
export async function runMacro(cfg, { datasets, toolsByTarget, s3, drop, log, record, quietWait = 60 }) {
  const timedOpts = (tool) => {
    if (!drop) return {};
    return { dropCache: true, beforeStart: () => warm(tool.warmFiles()) };
  };
  for (const target of cfg.targets) {
    const tools = toolsByTarget[target] ?? [];
    if (tools.length === 0) continue;
    for (const dsName of cfg.datasets) {
      const ds = datasets[dsName];
      for (let rep = 0; rep < cfg.runs; rep++) {
        const order = rep % 2 === 0 ? tools : [...tools].reverse();
        log(`[${target} ${dsName} run ${rep + 1}/${cfg.runs}] order: ${order.map((t) => t.name).join(', ')}`);
        const state = new Map(order.map((t) => [t, { repo: repoFor(cfg, s3, target, t, dsName, rep), ok: true, first: undefined }]));
        const base = { target, dataset: dsName, run: rep };
        const step = async (phase, tool, fn, measure) => {
          const st = state.get(tool);
          if (!st.ok) return;
          try {
            // Other engineers share the machine: start each timed command on a quiet machine.
            const quiet = quietWait > 0 ? await waitForQuiet({ maxWait: quietWait }) : undefined;
            const r = await fn(st);
            const row = {
              ...base,
              phase,
              tool: tool.name,
              wall: r.wall,
              user: r.user,
              sys: r.sys,
              peakRss: r.peakRss,
              ...(r.peakPageRss !== undefined ? { peakPageRss: r.peakPageRss, peakPageProcess: r.peakPageProcess, renderersAtPeak: r.renderersAtPeak } : {}),
              background: r.background,
              quietWait: quiet?.waited,
              ...(await measure(st, r)),
            };
            record(row);
            log(
              `  ${phase.padEnd(9)} ${tool.name.padEnd(8)} ${r.wall.toFixed(2).padStart(7)} s  cpu ${((r.user ?? 0) + (r.sys ?? 0)).toFixed(1).padStart(5)} s  bg ${r.background === undefined ? '?' : (r.background / r.wall).toFixed(2)}  ${(r.peakRss / 2 ** 20).toFixed(0).padStart(5)} MiB ${r.peakPageRss !== undefined ? `PSS (page process ${((r.peakPageProcess ?? 0) / 2 ** 20).toFixed(0)} MiB; renderers ${(r.peakPageRss / 2 ** 20).toFixed(0)} MiB: ${r.renderersAtPeak?.join(' + ')})` : 'RSS'}${row.repoBytes !== undefined ? `  repo ${(row.repoBytes / 1e6).toFixed(1)} MB` : ''}${row.note ? `  (${row.note})` : ''}`,
            );
          } catch (e) {
            st.ok = false;
            record({ ...base, phase, tool: tool.name, error: e.message });
            log(`  ${phase.padEnd(9)} ${tool.name.padEnd(8)} FAILED: ${e.message}`);
          }
        };
        try {
          // first backup
          for (const tool of order) {
            const st = state.get(tool);
            try {
              await st.repo.remove();
              await tool.init(st.repo);
            } catch (e) {
              st.ok = false;
              record({ ...base, phase: 'backup', tool: tool.name, error: e.message });
              log(`  init      ${tool.name.padEnd(8)} FAILED: ${e.message}`);
              continue;
            }
            await step(
              'backup',
              tool,
              (st2) => tool.backup(st2.repo, ds.dir, timedOpts(tool)),
              async (st2, r) => {
                st2.first = r.summary.snapshot_id;
                const size = await st2.repo.size();
                return {
                  bytes: ds.bytes,
                  files: ds.files,
                  repoBytes: size.bytes,
                  repoFiles: size.files,
                  dataAdded: r.summary.data_added,
                  filesRead: r.summary.files_read ?? r.summary.files_new + r.summary.files_changed,
                };
              },
            );
          }
          if (cfg.phases.includes('open')) {
            for (const tool of order)
              await step(
                'open',
                tool,
                (st2) => tool.open(st2.repo, timedOpts(tool)),
                async () => ({ bytes: 0, files: 0 }),
              );
          }
          const backupAgain = (tool) => (st2) => tool.backup(st2.repo, ds.dir, timedOpts(tool));
          const afterBackup = async (st2, r) => {
            const size = await st2.repo.size();
            return {
              bytes: ds.bytes,
              files: ds.files,
              repoBytes: size.bytes,
              dataAdded: r.summary.data_added,
              filesRead: r.summary.files_read,
              filesChanged: r.summary.files_changed,
              filesNew: r.summary.files_new,
              dirsChanged: r.summary.dirs_changed,
              treeBlobs: r.summary.tree_blobs,
            };
          };
          if (cfg.phases.includes('unchanged')) for (const tool of order) await step('unchanged', tool, backupAgain(tool), afterBackup);
          if (cfg.phases.includes('changed') && filesAfterMod(ds) > 0) {
            const save = path.join(cfg.dataDir, `.mod-${dsName}`);
            const said = runMod('modify', ds.dir, save, MOD_SEED + rep);
            try {
              for (const tool of order) await step('changed', tool, backupAgain(tool), async (st2, r) => ({ ...(await afterBackup(st2, r)), note: said }));
            } finally {
              runMod('revert', ds.dir, save);
            }
          }
          if (cfg.phases.includes('restore')) {
            for (const tool of order) {
              const out = path.join(cfg.scratch, `restore-${tool.name}`);
              fs.rmSync(out, { recursive: true, force: true });
              fs.mkdirSync(out, { recursive: true });
              await step(
                'restore',
                tool,
                (st2) => tool.restore(st2.repo, st2.first, out, timedOpts(tool)),
                async (st2, r) => {
                  const bad = checkRestored(out, ds, r.restored);
                  return { bytes: ds.bytes, files: ds.files, restoreMismatch: bad, note: bad };
                },
              );
              fs.rmSync(out, { recursive: true, force: true });
            }
          }
          if (cfg.phases.includes('zip')) {
            for (const tool of order) {
              if (tool.supportsPhase?.('zip') === false) continue;
              await step(
                'zip',
                tool,
                (st2) => tool.zip(st2.repo, st2.first, timedOpts(tool)),
                async (st2, r) => {
                  const bad = r.zipFiles !== undefined && r.zipFiles !== ds.files ? `zipped ${r.zipFiles} files, expected ${ds.files}` : undefined;
                  return { bytes: ds.bytes, files: ds.files, note: bad };
                },
              );
            }
          }
          if (cfg.phases.includes('check')) {
            for (const tool of order) {
              if (tool.supportsPhase?.('check') === false) continue;
              await step(
                'check',
                tool,
                (st2) => tool.check(st2.repo, timedOpts(tool)),
                async (st2) => {
                  const size = await st2.repo.size();
                  return { bytes: size.bytes, files: ds.files, repoBytes: size.bytes };
                },
              );
            }
          }
          if (cfg.phases.includes('check-subset')) {
            for (const tool of order) {
              if (tool.supportsPhase?.('check-subset') === false) continue;
              await step(
                'check-subset',
                tool,
                (st2) => tool.checkSubset(st2.repo, timedOpts(tool)),
                async (st2) => {
                  const size = await st2.repo.size();
                  // MB/s over the tenth read (pack sizes vary, so this is approximate).
                  return { bytes: Math.round(size.bytes / 10), files: 0, repoBytes: size.bytes };
                },
              );
            }
          }
          if (cfg.phases.includes('prune') && filesAfterMod(ds) > 0) {
            await runPrunePhase({ cfg, target, ds, dsName, rep, order, state, step, timedOpts, runMod, log });
          }
        } finally {
          for (const st of state.values()) await st.repo.remove().catch(() => {});
        }
      }
    }
  }
}
