// Headless Debian Chromium for the browser measurements, launched through playwright-core with
// the project's flags (no downloaded browsers: `npx playwright install` cannot work here), plus
// a tiny static server on 127.0.0.1 for the pages, bundles and inputs it needs.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json' };

/** routes: { '/path': filePath | Buffer | string }. Resolves { url, close() }. */
export async function serve(routes) {
  const server = http.createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    const r = routes[p];
    if (r === undefined) {
      res.writeHead(404).end();
      return;
    }
    const type = p.endsWith('/') ? 'text/html' : TYPES[path.extname(p)] ?? 'application/octet-stream';
    // Cross-origin isolation lets workers use SharedArrayBuffer and precise timers.
    const headers = { 'content-type': type, 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cache-control': 'no-store' };
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
