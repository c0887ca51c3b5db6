// Go's os.FileMode (what restic stores in a node's `mode`) and Unix st_mode, plus the node
// `type` strings. Go keeps the file type in high bits instead of S_IFMT; the mapping from
// st_mode is os/stat_linux.go's fillFileStatFromSys, and restic then masks the mode with
// perm | type | setuid | setgid | sticky (restic.NodeFromFileInfo).
// FileMode is a uint32 with bit 31 used, so all arithmetic here ends in `>>> 0`.

export const ModeDir = 0x80000000; // 1 << 31
export const ModeSymlink = 1 << 27;
export const ModeDevice = 1 << 26;
export const ModeNamedPipe = 1 << 25;
export const ModeSocket = 1 << 24;
export const ModeSetuid = 1 << 23;
export const ModeSetgid = 1 << 22;
export const ModeCharDevice = 1 << 21;
export const ModeSticky = 1 << 20;
export const ModeIrregular = 1 << 19;
export const ModePerm = 0o777;
export const ModeType = (ModeDir | ModeSymlink | ModeNamedPipe | ModeSocket | ModeDevice | ModeCharDevice | ModeIrregular) >>> 0;
/** The bits restic keeps from a FileMode. */
export const RESTIC_MODE_MASK = (ModePerm | ModeType | ModeSetuid | ModeSetgid | ModeSticky) >>> 0;

export const NODE_TYPES = ['file', 'dir', 'symlink', 'dev', 'chardev', 'fifo', 'socket', 'irregular'] as const;
/** Node types; 'irregular' only appears in trees from restic >= 0.17 on Windows. */
export type NodeType = (typeof NODE_TYPES)[number];

export function isNodeType(s: string): s is NodeType {
  return (NODE_TYPES as readonly string[]).includes(s);
}

const S_IFMT = 0o170000;
const S_IFSOCK = 0o140000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFBLK = 0o060000;
const S_IFDIR = 0o040000;
const S_IFCHR = 0o020000;
const S_IFIFO = 0o010000;
const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;

// [S_IFMT value, FileMode type bits, node type]
const TYPES: readonly [number, number, NodeType][] = [
  [S_IFREG, 0, 'file'],
  [S_IFDIR, ModeDir, 'dir'],
  [S_IFLNK, ModeSymlink, 'symlink'],
  [S_IFBLK, ModeDevice, 'dev'],
  [S_IFCHR, (ModeDevice | ModeCharDevice) >>> 0, 'chardev'],
  [S_IFIFO, ModeNamedPipe, 'fifo'],
  [S_IFSOCK, ModeSocket, 'socket'],
];

/** st_mode → the FileMode restic stores (already masked). Unknown S_IFMT → no type bits. */
export function goFileModeFromUnix(stMode: number): number {
  let mode = stMode & ModePerm;
  const t = TYPES.find(([ifmt]) => ifmt === (stMode & S_IFMT));
  if (t) mode |= t[1];
  if (stMode & S_ISUID) mode |= ModeSetuid;
  if (stMode & S_ISGID) mode |= ModeSetgid;
  if (stMode & S_ISVTX) mode |= ModeSticky;
  return (mode & RESTIC_MODE_MASK) >>> 0;
}

/** FileMode → st_mode (type, permission and setuid/setgid/sticky bits). */
export function unixModeFromGoFileMode(mode: number): number {
  const typeBits = (mode & (ModeType | ModeCharDevice)) >>> 0;
  let st = mode & ModePerm;
  const t = TYPES.find(([, bits]) => bits === typeBits);
  st |= t ? t[0] : S_IFREG;
  if (mode & ModeSetuid) st |= S_ISUID;
  if (mode & ModeSetgid) st |= S_ISGID;
  if (mode & ModeSticky) st |= S_ISVTX;
  return st;
}

/** restic's nodeTypeFromFileInfo; undefined where restic would write an invalid type. */
export function nodeTypeFromGoFileMode(mode: number): NodeType | undefined {
  const typeBits = (mode & (ModeType | ModeCharDevice)) >>> 0;
  return TYPES.find(([, bits]) => bits === typeBits)?.[2];
}

/** FileMode for a node type and permission bits (e.g. a browser file: 'file', 0o644 → 420). */
export function goFileModeFor(type: NodeType, perm: number): number {
  const bits = type === 'irregular' ? ModeIrregular : TYPES.find(([, , t]) => t === type)![1];
  return ((perm & (ModePerm | ModeSetuid | ModeSetgid | ModeSticky)) | bits) >>> 0;
}

const MODE_LETTERS = 'dalTLDpSugct?';

/** Go's FileMode.String(), e.g. "drwxr-xr-x", "Lrwxrwxrwx", "-rw-r--r--". */
export function goFileModeString(mode: number): string {
  let out = '';
  for (let i = 0; i < MODE_LETTERS.length; i++) {
    if (mode & (0x80000000 >>> i)) out += MODE_LETTERS[i];
  }
  if (out === '') out = '-';
  const rwx = 'rwxrwxrwx';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return out;
}
