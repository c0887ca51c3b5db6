import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCairnError } from '../core/errors';
import { parseArgs } from './args';
import { GLOBAL_FLAGS, globalOptions, goTrimSpace, parseGoDuration, readPassword } from './global';

let dir: string;
const file = (name: string, content: string) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};
const opts = (argv: string[], env: Record<string, string> = {}) => globalOptions(parseArgs(argv, GLOBAL_FLAGS).flags, env);

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return isCairnError(e) ? e.code : `uncoded ${String(e)}`;
  }
  return undefined;
}

describe('global options', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-global-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('password, as restic 0.14 resolvePassword', () => {
    // None of these cases may fall through to the prompt (it would read the test's stdin).
    it('flags over variables of the same kind', async () => {
      const a = file('a', 'from-flag'),
        b = file('b', 'from-env');
      expect(await readPassword(opts(['--password-file', a], { RESTIC_PASSWORD_FILE: b }))).toBe('from-flag');
      expect(await readPassword(opts(['-p', a], { RESTIC_PASSWORD: 'env' }))).toBe('from-flag');
      expect(await readPassword(opts(['--password-command', 'echo flag-cmd'], { RESTIC_PASSWORD_COMMAND: 'echo env-cmd' }))).toBe('flag-cmd');
    });

    it('RESTIC_PASSWORD_FILE, else RESTIC_PASSWORD_COMMAND, over RESTIC_PASSWORD', async () => {
      const b = file('b2', 'file-pw');
      expect(await readPassword(opts([], { RESTIC_PASSWORD_FILE: b, RESTIC_PASSWORD: 'env' }))).toBe('file-pw');
      expect(await readPassword(opts([], { RESTIC_PASSWORD_COMMAND: 'echo cmd-pw', RESTIC_PASSWORD: 'env' }))).toBe('cmd-pw');
      expect(await readPassword(opts([], { RESTIC_PASSWORD: 'env' }))).toBe('env');
    });

    it.each([
      ['--password-file with RESTIC_PASSWORD_COMMAND', ['--password-file', 'PW'], { RESTIC_PASSWORD_COMMAND: 'echo x' }],
      ['--password-command with RESTIC_PASSWORD_FILE', ['--password-command', 'echo x'], { RESTIC_PASSWORD_FILE: 'PW' }],
      ['both variables', [], { RESTIC_PASSWORD_FILE: 'PW', RESTIC_PASSWORD_COMMAND: 'echo x' }],
      ['both flags', ['--password-file', 'PW', '--password-command', 'echo x'], {}],
    ])('a password file and a command together are refused: %s', async (_what, argv, env) => {
      const pw = file('pw-both', 'secret');
      const fix = (s: string) => (s === 'PW' ? pw : s);
      const e = await readPassword(opts(argv.map(fix), Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fix(v)])))).catch((x: unknown) => x);
      expect(isCairnError(e, 'USAGE')).toBe(true);
      expect((e as Error).message).toBe('Password file and command are mutually exclusive options');
    });

    it("trims whitespace around file contents and command output like Go's TrimSpace", async () => {
      expect(await readPassword(opts(['-p', file('ws', '  secret pw \r\n\n')]))).toBe('secret pw');
      expect(await readPassword(opts(['--password-command', "printf '\\tcmd pw\\n\\n'"]))).toBe('cmd pw');
      expect(goTrimSpace('\u00a0\u0085x y\u2003\n')).toBe('x y');
      expect(goTrimSpace('\ufeffx')).toBe('\ufeffx'); // not a space to Go
    });

    it("an empty flag value counts as unset, as Go's empty string does", async () => {
      // (An empty file, command output or variable falls through to the prompt, which this
      // test cannot reach without reading its own stdin.)
      expect(await readPassword(opts(['--password-file='], { RESTIC_PASSWORD: 'env' }))).toBe('env');
      expect(await readPassword(opts(['--password-command='], { RESTIC_PASSWORD: 'env' }))).toBe('env');
    });

    it('a missing file or a failing command is NO_PASSWORD', async () => {
      expect(await codeOf(readPassword(opts(['-p', join(dir, 'absent')])))).toBe('NO_PASSWORD');
      expect(await codeOf(readPassword(opts(['--password-command', 'exit 3'])))).toBe('NO_PASSWORD');
    });
  });

  describe('repository', () => {
    it('-r over RESTIC_REPOSITORY', () => {
      expect(opts(['-r', '/a'], { RESTIC_REPOSITORY: '/b' }).repo).toBe('/a');
      expect(opts([], { RESTIC_REPOSITORY: '/b' }).repo).toBe('/b');
      expect(opts([]).repo).toBeUndefined();
    });

    it('--repository-file (or its variable), trimmed', () => {
      const f = file('repo', '  s3:http://host/bucket \n');
      expect(opts(['--repository-file', f]).repo).toBe('s3:http://host/bucket');
      expect(opts([], { RESTIC_REPOSITORY_FILE: f }).repo).toBe('s3:http://host/bucket');
    });

    it.each([
      ['-r and --repository-file', ['-r', '/a', '--repository-file', 'F'], {}],
      ['RESTIC_REPOSITORY and --repository-file', ['--repository-file', 'F'], { RESTIC_REPOSITORY: '/b' }],
      ['-r and RESTIC_REPOSITORY_FILE', ['-r', '/a'], { RESTIC_REPOSITORY_FILE: 'F' }],
    ])('%s exclude each other', async (_what, argv, env) => {
      const f = file('repo2', '/c');
      const fix = (s: string) => (s === 'F' ? f : s);
      expect(await codeOf(() => opts(argv.map(fix), Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fix(v)]))))).toBe('USAGE');
    });

    it('an unreadable repository file is a coded error', async () => {
      expect(await codeOf(() => opts(['--repository-file', join(dir, 'absent')]))).toBe('USAGE');
    });
  });

  it('other options: flags over variables, validated', async () => {
    expect(opts([], { RESTIC_COMPRESSION: 'max' }).compression).toBe('max');
    expect(opts(['--compression', 'off'], { RESTIC_COMPRESSION: 'max' }).compression).toBe('off');
    expect(opts([]).compression).toBe('auto');
    expect(await codeOf(() => opts(['--compression', 'fast']))).toBe('USAGE');
    expect(opts(['--pack-size', '32']).packSize).toBe(32 * 1024 * 1024);
    expect(opts([], { RESTIC_PACK_SIZE: '4' }).packSize).toBe(4 * 1024 * 1024);
    expect(opts([]).packSize).toBeUndefined();
    for (const bad of [
      ['--pack-size', '3'],
      ['--pack-size', '129'],
    ])
      expect(await codeOf(() => opts(bad))).toBe('USAGE');
    expect(opts(['--key-hint', 'abc'], { RESTIC_KEY_HINT: 'def' }).keyHint).toBe('abc');
    expect(opts([], { RESTIC_KEY_HINT: 'def' }).keyHint).toBe('def');
    expect(opts(['-qv', '--json', '--no-lock'])).toMatchObject({ quiet: true, verbose: true, json: true, noLock: true });
  });
});

describe('--stuck-request-timeout (a Go duration, restic 0.18 default 5m0s)', () => {
  it('parses Go durations', () => {
    expect(parseGoDuration('5m0s')).toBe(300_000);
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDuration('1500ms')).toBe(1500);
    expect(parseGoDuration('.5s')).toBe(500);
    expect(parseGoDuration('0')).toBe(0);
    for (const bad of ['', '5', '5 m', 'm5', '5x', '-5s']) expect(parseGoDuration(bad)).toBeUndefined();
  });

  it('defaults to 5 minutes and refuses what is not a positive duration', () => {
    expect(globalOptions(parseArgs([], GLOBAL_FLAGS).flags, {}).stuckTimeoutMs).toBe(300_000);
    expect(globalOptions(parseArgs(['--stuck-request-timeout', '30s'], GLOBAL_FLAGS).flags, {}).stuckTimeoutMs).toBe(30_000);
    for (const bad of ['0', 'soon'])
      expect(() => globalOptions(parseArgs(['--stuck-request-timeout', bad], GLOBAL_FLAGS).flags, {})).toThrow(/stuck-request-timeout/);
  });
});
