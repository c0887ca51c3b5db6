// A small pflag-style parser (restic uses cobra/pflag): `--flag value`, `--flag=value`,
// `-f value`, boolean flags, repeatable flags, flags anywhere among the arguments, `--` ends
// flags.

import { CairnError } from '../core/errors';

export type FlagType = 'string' | 'bool' | 'strings' | 'int' | 'count';

export interface FlagSpec {
  type: FlagType;
  short?: string;
  /** Name shown in help. */
  help?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

export interface Parsed {
  flags: Record<string, string | boolean | string[] | number | undefined>;
  args: string[];
}

const GO_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

export function parseArgs(argv: string[], specs: FlagSpecs): Parsed {
  const flags: Parsed['flags'] = {};
  const args: string[] = [];
  const byShort = new Map(
    Object.entries(specs)
      .filter(([, s]) => s.short)
      .map(([n, s]) => [s.short!, n]),
  );
  const set = (name: string, value: string | undefined, next: () => string | undefined) => {
    const spec = specs[name];
    if (!spec) throw new CairnError('USAGE', `unknown flag: --${name}`);
    if (spec.type === 'count') {
      // pflag CountVar: each -v adds one; --verbose=n sets n.
      if (value === undefined) flags[name] = ((flags[name] as number | undefined) ?? 0) + 1;
      else if (/^\d+$/.test(value)) flags[name] = Number(value);
      else throw new CairnError('USAGE', `invalid argument "${value}" for --${name}: not a count`);
      return;
    }
    if (spec.type === 'bool') {
      // Go's strconv.ParseBool spellings of false (we only knew "false" and "0").
      flags[name] = value === undefined ? true : !GO_FALSE.has(value);
      return;
    }
    const v = value ?? next();
    if (v === undefined) throw new CairnError('USAGE', `flag needs an argument: --${name}`);
    if (spec.type === 'strings') (flags[name] = (flags[name] as string[] | undefined) ?? []) && (flags[name] as string[]).push(v);
    else if (spec.type === 'int') {
      const n = Number(v);
      if (!Number.isInteger(n)) throw new CairnError('USAGE', `invalid argument "${v}" for --${name}: not an integer`);
      flags[name] = n;
    } else flags[name] = v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => (i + 1 < argv.length ? argv[++i] : undefined);
    if (a === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      set(eq > 0 ? a.slice(2, eq) : a.slice(2), eq > 0 ? a.slice(eq + 1) : undefined, next);
    } else if (a.startsWith('-') && a.length > 1) {
      // pflag parseShortArg: each letter is a flag; `=` after one gives its value (-r=x,
      // -q=false); the first non-boolean one takes the rest of the argument or the next one.
      // So a value flag may follow boolean ones (-qr /srv/repo, -qrx), and -q=false is valid.
      for (let k = 1; k < a.length; k++) {
        const c = a[k]!;
        const name = byShort.get(c);
        if (!name) throw new CairnError('USAGE', `unknown shorthand flag: '${c}' in ${a}`);
        const rest = a.slice(k + 1);
        if (rest.startsWith('=')) {
          set(name, rest.slice(1), next);
          break;
        }
        if (specs[name]!.type === 'bool' || specs[name]!.type === 'count') {
          set(name, undefined, next);
          continue;
        }
        set(name, rest || undefined, next);
        break;
      }
    } else args.push(a);
  }
  return { flags, args };
}
