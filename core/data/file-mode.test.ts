import { describe, expect, it } from 'vitest';
import { goFileModeFor, goFileModeFromUnix, goFileModeString, nodeTypeFromGoFileMode, unixModeFromGoFileMode } from './file-mode';

// [st_mode, FileMode restic stores (values seen in restic 0.14 trees), node type, FileMode.String()]
const CASES: [number, number, string, string][] = [
  [0o100644, 420, 'file', '-rw-r--r--'],
  [0o100600, 384, 'file', '-rw-------'],
  [0o100755, 493, 'file', '-rwxr-xr-x'],
  [0o104755, 8389101, 'file', 'urwxr-xr-x'],
  [0o040755, 2147484141, 'dir', 'drwxr-xr-x'],
  [0o042755, 2151678445, 'dir', 'dgrwxr-xr-x'],
  [0o041777, 2148532735, 'dir', 'dtrwxrwxrwx'],
  [0o120777, 134218239, 'symlink', 'Lrwxrwxrwx'],
  [0o060644, 67109284, 'dev', 'Drw-r--r--'],
  [0o020644, 69206436, 'chardev', 'Dcrw-r--r--'],
  [0o010644, 33554852, 'fifo', 'prw-r--r--'],
  [0o140755, 16777709, 'socket', 'Srwxr-xr-x'],
];

describe('FileMode ↔ st_mode', () => {
  it.each(CASES)('st_mode %o → %i (%s, %s)', (st, mode, type, text) => {
    expect(goFileModeFromUnix(st)).toBe(mode);
    expect(nodeTypeFromGoFileMode(mode)).toBe(type);
    expect(unixModeFromGoFileMode(mode)).toBe(st);
    expect(goFileModeString(mode)).toBe(text);
  });

  it('builds a mode from a node type and permissions (for sources without st_mode)', () => {
    expect(goFileModeFor('file', 0o644)).toBe(420);
    expect(goFileModeFor('dir', 0o755)).toBe(2147484141);
    expect(goFileModeFor('symlink', 0o777)).toBe(134218239);
    expect(goFileModeFor('chardev', 0o600)).toBe(69206400);
    expect(goFileModeFor('file', 0o100644)).toBe(420); // S_IFMT bits are not permissions
  });

  it('keeps no bits restic masks away and has no type for irregular files', () => {
    expect(goFileModeFromUnix(0o170644)).toBe(420); // unknown S_IFMT: no type bits
    expect(nodeTypeFromGoFileMode(((1 << 19) | 0o644) >>> 0)).toBeUndefined();
    expect(goFileModeString(0)).toBe('----------');
  });
});
