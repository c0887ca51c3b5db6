import { describe, expect, it } from 'vitest';
import { main } from './main';
import type { Out } from './output';

function capture(): Out & { out: string; err: string } {
  const o = { out: '', err: '', isTTY: false, stdout: (s: string) => void (o.out += s), stderr: (s: string) => void (o.err += s) };
  return o;
}

describe('cairn main', () => {
  it.each([
    [['-r', '/nonexistent-repo', 'snapshots']],
    [['-qr', '/nonexistent-repo', 'snapshots']],
    [['-r/nonexistent-repo', 'snapshots']],
    [['--repo', '/nonexistent-repo', 'snapshots']],
    [['--repo=/nonexistent-repo', '--json', 'snapshots']],
    [['snapshots', '-r', '/nonexistent-repo']],
  ])('finds the command among global flags: %j', async (argv) => {
    const o = capture();
    expect(await main(argv, { RESTIC_PASSWORD: 'x' }, o)).toBe(1);
    expect(o.err).toMatch(/^NOT_A_REPOSITORY: /);
  });

  it('reports an unknown command as a usage error', async () => {
    const o = capture();
    expect(await main(['-r', '/x', 'frobnicate'], {}, o)).toBe(1);
    expect(o.err).toBe('USAGE: unknown command "frobnicate" for "cairn"\n');
  });

  it('prints help and the version', async () => {
    const o = capture();
    expect(await main(['version'], {}, o)).toBe(0);
    expect(o.out).toMatch(/^cairn \d+\.\d+\.\d+/);
    const h = capture();
    expect(await main(['help'], {}, h)).toBe(0);
    for (const c of ['backup', 'restore', 'snapshots', 'check', 'key']) expect(h.out).toContain(`  ${c}`);
  });

  it.each([[['--help']], [['-h']], [[]], [['help']], [['-r', '/x']]])('prints the root help and exits 0 like restic: %j', async (argv) => {
    const o = capture();
    expect(await main(argv, {}, o)).toBe(0);
    expect(o.out).toContain('Available Commands:');
    for (const c of ['find', 'diff', 'dump', 'tag', 'generate', 'stats']) expect(o.out).toContain(`  ${c} `);
  });

  it.each(['find', 'diff', 'dump', 'tag', 'snapshots', 'ls', 'stats', 'cat', 'generate', 'backup', 'restore'])(
    '%s --help and help %s exit 0 with its flags',
    async (cmd) => {
      const a = capture();
      expect(await main([cmd, '--help'], {}, a)).toBe(0);
      expect(a.out).toContain(`Usage:\n  cairn ${cmd} `);
      expect(a.out).toMatch(/Flags:\n[\s\S]*-h, --help +help for /);
      expect(a.out).toContain('Global Flags:');
      const b = capture();
      expect(await main(['help', cmd], {}, b)).toBe(0);
      expect(b.out).toBe(a.out);
    },
  );
});
