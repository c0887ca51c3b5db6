// A small pflag-style parser (restic uses cobra/pflag): `--flag value`, `--flag=value`,
// `-f value`, boolean flags, repeatable flags, flags anywhere among the arguments, `--` ends
// flags. A command declares its flags once (`defineFlags`); that declaration drives parsing,
// the help text and the TypeScript type of the parsed values (`FlagValues`).

import { CairnError } from '../core/errors';

export type FlagType = 'string' | 'bool' | 'strings' | 'int' | 'count';

export interface FlagSpec<T extends FlagType = FlagType> {
  type: T;
  short?: string;
  /** Name shown in help. */
  help?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** What each kind of flag parses to. */
interface FlagTypeValues {
  string: string;
  bool: boolean;
  strings: string[];
  int: number;
  count: number;
}

type FlagValue = FlagTypeValues[FlagType];

/** The parsed values of a flag set: each flag absent, or of the type its spec declares. */
export type FlagValues<S extends FlagSpecs> = { readonly [K in keyof S]?: FlagTypeValues[S[K]['type']] };

/** A flag set, its literal types kept so that `FlagValues<typeof set>` names each flag's type. */
export const defineFlags = <const S extends FlagSpecs>(specs: S): S => specs;

/** The choice a string flag names, typed as the choices' union; undefined when it names none. */
export function oneOf<T extends string>(choices: readonly T[], text: string): T | undefined {
  return choices.find((c) => c === text);
}

export interface Parsed<S extends FlagSpecs = FlagSpecs> {
  flags: FlagValues<S>;
  args: string[];
}

const GO_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** One flag's new value from its spec, the text given (undefined: none inline) and what it held. */
function flagValue(name: string, spec: FlagSpec, value: string | undefined, before: FlagValue | undefined, next: () => string | undefined): FlagValue {
  if (spec.type === 'count') {
    // pflag CountVar: each -v adds one; --verbose=n sets n.
    if (value === undefined) return (typeof before === 'number' ? before : 0) + 1;
    if (/^\d+$/.test(value)) return Number(value);
    throw new CairnError('USAGE', `invalid argument "${value}" for --${name}: not a count`);
  }
  // Go's strconv.ParseBool spellings of false.
  if (spec.type === 'bool') return value === undefined ? true : !GO_FALSE.has(value);
  const v = value ?? next();
  if (v === undefined) throw new CairnError('USAGE', `flag needs an argument: --${name}`);
  if (spec.type === 'strings') return Array.isArray(before) ? [...before, v] : [v];
  if (spec.type === 'int') {
    const n = Number(v);
    if (!Number.isInteger(n)) throw new CairnError('USAGE', `invalid argument "${v}" for --${name}: not an integer`);
    return n;
  }
  return v;
}

export function parseArgs<S extends FlagSpecs>(argv: readonly string[], specs: S): Parsed<S> {
  const flags = new Map<string, FlagValue>();
  const args: string[] = [];
  const byShort = new Map(
    Object.entries(specs)
      .filter(([, s]) => s.short)
      .map(([n, s]) => [s.short!, n]),
  );
  const set = (name: string, value: string | undefined, next: () => string | undefined) => {
    const spec = specs[name];
    if (!spec) throw new CairnError('USAGE', `unknown flag: --${name}`);
    flags.set(name, flagValue(name, spec, value, flags.get(name), next));
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
  // The one place values meet their declared types: each was made by flagValue from its own spec.
  return { flags: Object.fromEntries(flags) as FlagValues<S>, args };
}

/**
 * A command line of the global flags and a command's own (restic: persistent flags and the
 * command's flag set): one parse, so either kind may come anywhere, and a typed view of each set.
 */
export function parseCommandLine<G extends FlagSpecs, C extends FlagSpecs>(
  argv: readonly string[],
  globals: G,
  own: C,
): { globals: FlagValues<G>; flags: FlagValues<C>; args: string[] } {
  const shadowed = Object.keys(own).filter((name) => name in globals);
  if (shadowed.length) throw new CairnError('INTERNAL', `a command redeclares global flags: ${shadowed.join(', ')}`);
  const { flags, args } = parseArgs(argv, { ...globals, ...own });
  return { globals: flags, flags, args };
}
