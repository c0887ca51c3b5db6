// A small W3C WebDriver client over fetch, and the processes WebKitGTK needs to be driven
// headless: Xvfb (a display of its own, chosen by Xvfb) and WebKitWebDriver (which starts
// MiniBrowser, Safari's engine as Debian ships it). Only the commands the WebKit test uses.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const MINIBROWSER = process.env['MINIBROWSER_PATH'] ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Xvfb on the first free display, which it reports on fd 3. */
async function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  const display = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdio[3]!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(':' + buf.trim());
    });
    proc.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
    setTimeout(() => reject(new Error('Xvfb did not report a display')), 15_000);
  });
  return { display, proc };
}

export interface Driver {
  url: string;
  /** Where MiniBrowser saves downloads (its HOME). */
  downloads: string;
  stop(): Promise<void>;
}

/** Xvfb + WebKitWebDriver; MiniBrowser's HOME (so its downloads) is `home`. */
export async function startDriver(home: string): Promise<Driver> {
  const x = await startXvfb();
  const port = await freePort();
  const proc = spawn('WebKitWebDriver', [`--port=${port}`], { env: { ...process.env, DISPLAY: x.display, HOME: home }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/status`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 100) throw new Error('WebKitWebDriver did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const kill = (p: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (p.exitCode !== null) return resolve();
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  return {
    url,
    downloads: home,
    async stop() {
      await kill(proc);
      await kill(x.proc);
    },
  };
}

export class Session {
  private constructor(
    private readonly base: string,
    readonly id: string,
    readonly capabilities: Record<string, unknown>,
  ) {}

  static async start(driverUrl: string): Promise<Session> {
    const caps = {
      capabilities: {
        alwaysMatch: { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } },
      },
    };
    const v = await request<{ sessionId: string; capabilities: Record<string, unknown> }>(driverUrl, 'POST', '/session', caps);
    return new Session(driverUrl, v.sessionId, v.capabilities);
  }

  private cmd<T>(method: string, path: string, body?: unknown): Promise<T> {
    return request<T>(this.base, method, `/session/${this.id}${path}`, body);
  }

  navigate(url: string): Promise<void> {
    return this.cmd('POST', '/url', { url });
  }

  /** Runs `script` (a function body; `arguments` are `args`) in the page. */
  execute<T>(script: string, ...args: unknown[]): Promise<T> {
    return this.cmd('POST', '/execute/sync', { script, args });
  }

  async find(css: string): Promise<string> {
    const v = await this.cmd<Record<string, string>>('POST', '/element', { using: 'css selector', value: css });
    return v[ELEMENT]!;
  }

  /** Types into an element the way a keyboard does (WebDriver Element Send Keys). */
  async type(css: string, text: string): Promise<void> {
    await this.cmd('POST', `/element/${await this.find(css)}/value`, { text });
  }

  async click(css: string): Promise<void> {
    await this.cmd('POST', `/element/${await this.find(css)}/click`, {});
  }

  /** Polls `script` until it returns something truthy. */
  async until<T>(what: string, script: string, timeoutMs = 60_000, ...args: unknown[]): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.execute<T>(script, ...args);
      if (v) return v;
      if (Date.now() > end) {
        const body = await this.execute<string>('return document.body.innerText.slice(0, 1500)');
        throw new Error(`timed out waiting for ${what}; the page says: ${body}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async end(): Promise<void> {
    await this.cmd('DELETE', '').catch(() => {});
  }
}

async function request<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { value: T & { error?: string; message?: string } };
  if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
  return json.value;
}
