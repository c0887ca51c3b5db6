// Headless Debian Chromium for the browser measurements, launched through playwright-core with
// the project's flags (no downloaded browsers: `npx playwright install` cannot work here), plus
// a tiny static server on 127.0.0.1 for the pages, bundles and inputs it needs.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // BENCH_V8_PROF=<dir>: V8's sampling profiler writes one log per isolate (page, engine, each
  // saver) into <dir>; `node --prof-process <log>` reads one.
  ...(process.env.BENCH_V8_PROF ? [`--js-flags=--prof --logfile=${process.env.BENCH_V8_PROF}/v8.log`] : []),
];

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** routes: { '/path': filePath | Buffer | string }. Resolves { url, close() }. */
export async function serve(routes) {
  const server = http.createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    const r = routes[p];
    if (r === undefined) {
      res.writeHead(404).end();
      return;
    }
    const type = p.endsWith('/') ? 'text/html' : (TYPES[path.extname(p)] ?? 'application/octet-stream');
    // Cross-origin isolation lets workers use SharedArrayBuffer and precise timers.
    const headers = {
      'content-type': type,
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cache-control': 'no-store',
    };
    if (typeof r === 'string' && r.startsWith('/') && fs.existsSync(r)) {
      const st = fs.statSync(r);
      res.writeHead(200, { ...headers, 'content-length': st.size });
      fs.createReadStream(r).pipe(res);
    } else {
      const body = Buffer.isBuffer(r) ? r : Buffer.from(r);
      res.writeHead(200, { ...headers, 'content-length': body.length }).end(body);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Routes for `serve` to every file under `dir` ('/' is its index.html). */
export function staticRoutes(dir) {
  const routes = {};
  const rec = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) rec(p, `${rel}${e.name}/`);
      else routes[`/${rel}${e.name}`] = p;
    }
  };
  rec(dir, '');
  routes['/'] = routes['/index.html'];
  return routes;
}

export async function launchChromium(executablePath) {
  if (!fs.existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}

/**
 * CPU seconds (user + system) used so far by Chromium's browser process and by its renderers,
 * from /proc (Linux; clock ticks of 1/100 s); with `since` (an earlier reading), what they used
 * after it.
 */
export function chromiumCpuSeconds(since = { browser: 0, renderers: 0 }) {
  const out = { browser: 0, renderers: 0 };
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    let cmd, stat;
    try {
      cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('chromium')) continue;
      stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // comm may contain spaces and parentheses: fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const s = (Number(f[11]) + Number(f[12])) / 100;
    if (!cmd.includes('--type=')) out.browser += s;
    else if (cmd.includes('--type=renderer')) out.renderers += s;
  }
  return { browser: out.browser - since.browser, renderers: out.renderers - since.renderers };
}

/**
 * CPU seconds used so far (of them in the kernel, and minor page faults taken) by each thread of the given processes,
 * keyed `pid/tid`, with the process's kind (`browser`, or its `--type=`) and the thread's name. Threads that exited
 * between two readings are missing from the later one (their time is lost to the delta).
 */
export function threadCpuSeconds(pids) {
  const out = new Map();
  for (const pid of pids) {
    let kind, tids;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      kind = /--type=([\w-]+)/.exec(cmd)?.[1] ?? 'browser';
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(`${pid}/${tid}`, { kind, pid, name, cpu: (Number(f[11]) + Number(f[12])) / 100, sys: Number(f[12]) / 100, faults: Number(f[7]) });
      } catch {
        // exited meanwhile
      }
    }
  }
  return out;
}

/**
 * What each kind of thread used between two threadCpuSeconds() readings (a thread missing
 * from `before` counts from zero), summed by process
 * kind and thread name (numbered names such as `ThreadPoolForegroundWorker 3` summed; each Web
 * Worker thread apart), most first.
 */
export function threadCpuDelta(before, after, min = 0.05) {
  const sums = new Map();
  for (const [key, t] of after) {
    const d = t.cpu - (before.get(key)?.cpu ?? 0);
    const f = t.faults - (before.get(key)?.faults ?? 0);
    const sys = t.sys - (before.get(key)?.sys ?? 0);
    // Each Web Worker apart (the engine, each saver or decoder); pools of Chromium's own summed.
    const group = `${t.kind} ${t.pid}: ${t.name.startsWith('DedicatedWorker') ? `${t.name} ${key.split('/')[1]}` : t.name.replace(/[\s\d]+$/, '')}`;
    const sum = sums.get(group) ?? { seconds: 0, sys: 0, faults: 0 };
    sum.seconds += d;
    sum.sys += sys;
    sum.faults += f;
    sums.set(group, sum);
  }
  return [...sums]
    .filter(([, s]) => s.seconds >= min)
    .sort((a, b) => b[1].seconds - a[1].seconds)
    .map(([group, s]) => ({ group, seconds: Math.round(s.seconds * 100) / 100, sys: Math.round(s.sys * 100) / 100, faults: s.faults }));
}

/**
 * A page in a fresh persistent profile (OPFS on disk, as a user's) with one dedicated worker
 * running `workerSource`: `ask(message)` posts to the worker and resolves with its next reply;
 * `profile` is the profile's directory (its processes carry it on their command lines).
 */
export async function workerPage(workerSource) {
  const page0 = `<!doctype html><script type="module">
const w = new Worker('/w.js'); let pending; w.onmessage = (e) => pending(e.data);
window.ask = (m) => new Promise((r) => { pending = r; w.postMessage(m); });
</script>`;
  const server = await serve({ '/': page0, '/w.js': workerSource });
  const { chromium } = await import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-worker-page-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(server.url + '/');
  return {
    profile,
    ask: (m) => page.evaluate((x) => window.ask(x), m),
    async close() {
      await browser.close();
      await server.close();
      await removeProfile(profile);
    },
  };
}

/** Removes a Chromium profile: its child processes can still be writing into it for a moment after it exits. */
async function removeProfile(profile) {
  for (let i = 0; ; i++) {
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
      return;
    } catch (e) {
      if (i >= 3) return console.warn(`could not remove ${profile}: ${e.message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/**
 * Chromium launched by hand with a debugging port and a fresh on-disk profile, connected over
 * CDP: Playwright's persistent contexts have no browser-level CDP session, which memory dumps
 * and worker profiling need. `close()` ends it and removes the profile.
 */
export async function launchWithCdp(prefix = 'cairn-cdp-') {
  const { spawn } = await import('node:child_process');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const port = 9300 + Math.floor(Math.random() * 500);
  const chrome = spawn(
    process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    [...CHROMIUM_FLAGS, '--headless=new', `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: 'ignore' },
  );
  const { chromium } = await import('playwright-core');
  let browser;
  for (let i = 0; i < 50 && !browser; i++)
    browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`).catch(() => new Promise((r) => setTimeout(r, 200)));
  if (!browser) throw new Error('Chromium did not open its debugging port');
  const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  return {
    browser,
    page,
    profile,
    async close() {
      await browser.close();
      chrome.kill();
      await new Promise((r) => (chrome.exitCode !== null ? r() : chrome.once('exit', r))); // still writing its profile until then
      await removeProfile(profile);
    },
  };
}
