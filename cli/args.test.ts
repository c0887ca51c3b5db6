import { describe, expect, it } from 'vitest';
import { isCairnError } from '../core/errors';
import { defineFlags, parseArgs, parseCommandLine, type FlagSpecs } from './args';

const SPECS: FlagSpecs = {
  repo: { type: 'string', short: 'r' },
  quiet: { type: 'bool', short: 'q' },
  verbose: { type: 'bool', short: 'v' },
  json: { type: 'bool' },
  exclude: { type: 'strings', short: 'e' },
  'pack-size': { type: 'int' },
  host: { type: 'string', short: 'H' },
};

const parse = (...argv: string[]) => parseArgs(argv, SPECS);

function usage(...argv: string[]): string {
  try {
    parse(...argv);
  } catch (e) {
    expect(isCairnError(e, 'USAGE'), String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseArgs (pflag behaviour)', () => {
  it.each([
    [['--repo=/srv/r'], '/srv/r'],
    [['--repo', '/srv/r'], '/srv/r'],
    [['-r', '/srv/r'], '/srv/r'],
    [['-r/srv/r'], '/srv/r'],
    [['-r=/srv/r'], '/srv/r'],
    [['--repo=a=b'], 'a=b'],
    [['--repo='], ''],
    [['--repo', '--json'], '--json'], // a value is taken whatever it looks like
    [['-r', '-q'], '-q'],
  ])('%j sets repo to %j', (argv, want) => {
    expect(parse(...argv).flags.repo).toBe(want);
  });

  it('takes flags anywhere among the arguments', () => {
    expect(parse('a', '-q', 'b', '--repo', 'R', 'c')).toEqual({ flags: { quiet: true, repo: 'R' }, args: ['a', 'b', 'c'] });
  });

  it('combines short booleans, and a value flag at the end of the group takes its value', () => {
    expect(parse('-qv').flags).toEqual({ quiet: true, verbose: true });
    expect(parse('-qvr', '/srv/r').flags).toEqual({ quiet: true, verbose: true, repo: '/srv/r' });
    expect(parse('-qr/srv/r').flags).toEqual({ quiet: true, repo: '/srv/r' });
    expect(parse('-qr=/srv/r').flags).toEqual({ quiet: true, repo: '/srv/r' });
    // Everything after a value flag is its value, even letters that are flags.
    expect(parse('-rqv').flags).toEqual({ repo: 'qv' });
  });

  it("booleans take =value with Go's ParseBool spellings of false", () => {
    for (const f of ['false', '0', 'f', 'F', 'FALSE', 'False']) expect(parse(`--json=${f}`).flags.json).toBe(false);
    for (const t of ['true', '1', 't', 'T', 'TRUE']) expect(parse(`--json=${t}`).flags.json).toBe(true);
    expect(parse('-q=false').flags.quiet).toBe(false);
    expect(parse('-vq=false').flags).toEqual({ verbose: true, quiet: false });
    // A boolean never swallows the next argument.
    expect(parse('--json', 'false')).toEqual({ flags: { json: true }, args: ['false'] });
  });

  it('repeated flags: the last string wins, string lists collect every value in order', () => {
    expect(parse('-r', 'a', '--repo', 'b').flags.repo).toBe('b');
    expect(parse('-e', '*.tmp', '--exclude=/cache', '-e/x,y').flags.exclude).toEqual(['*.tmp', '/cache', '/x,y']);
  });

  it('parses ints and refuses non-integers', () => {
    expect(parse('--pack-size', '64').flags['pack-size']).toBe(64);
    expect(parse('--pack-size=0x10').flags['pack-size']).toBe(16);
    expect(usage('--pack-size', '1.5')).toMatch(/invalid argument "1.5" for --pack-size/);
    expect(usage('--pack-size=abc')).toMatch(/not an integer/);
  });

  it('-- ends the flags; a lone - is an argument', () => {
    expect(parse('-q', '--', '-r', '--json', 'x')).toEqual({ flags: { quiet: true }, args: ['-r', '--json', 'x'] });
    expect(parse('-', '-q')).toEqual({ flags: { quiet: true }, args: ['-'] });
    expect(parse('--')).toEqual({ flags: {}, args: [] });
  });

  it('unknown flags and missing values are USAGE errors', () => {
    expect(usage('--nope')).toBe('unknown flag: --nope');
    expect(usage('--nope=1')).toBe('unknown flag: --nope');
    expect(usage('-x')).toBe("unknown shorthand flag: 'x' in -x");
    expect(usage('-qx')).toBe("unknown shorthand flag: 'x' in -qx");
    expect(usage('--repo')).toBe('flag needs an argument: --repo');
    expect(usage('-r')).toBe('flag needs an argument: --repo');
    expect(usage('-qr')).toBe('flag needs an argument: --repo');
    expect(usage('--=x')).toMatch(/unknown flag/);
  });

  it('leaves unset flags out', () => {
    expect(parse('x').flags).toEqual({});
  });

  it('parses global and command flags in one pass, each set seen through its own type', () => {
    const globals = defineFlags({ repo: { type: 'string', short: 'r' }, verbose: { type: 'count', short: 'v' } });
    const own = defineFlags({ tag: { type: 'strings' }, latest: { type: 'int' } });
    const line = parseCommandLine(['--tag', 'a', '-vv', 'x', '-r', '/srv', '--latest', '3', '--tag', 'b'], globals, own);
    const repo: string | undefined = line.globals.repo;
    const tags: string[] | undefined = line.flags.tag;
    expect({ repo, verbose: line.globals.verbose, tags, latest: line.flags.latest, args: line.args }).toEqual({
      repo: '/srv',
      verbose: 2,
      tags: ['a', 'b'],
      latest: 3,
      args: ['x'],
    });
  });

  it('refuses a command flag set that redeclares a global flag (the typed views would disagree)', () => {
    const globals = defineFlags({ host: { type: 'string' } });
    expect(() => parseCommandLine([], globals, defineFlags({ host: { type: 'strings' } }))).toThrow(/redeclares global flags: host/);
  });
});
