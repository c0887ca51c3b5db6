// What finding the used blobs needs of a tree: the content IDs of its file nodes and the
// subtree IDs of its directory nodes (restic data.FindUsedBlobs). Read straight from the
// tree's JSON bytes, as positions of the 64 hex characters, without making nodes or strings
// — decoding every node (names, times, modes) was most of prune's planning time.
//
// Any JSON is read (keys in any order, unknown keys and values skipped, whitespace), but
// anything this reader is not sure of — an ID that is not 64 lower-case hex characters, a key
// written with escapes or in other letter case (Go matches those), a key of interest given
// twice, a directory without a subtree, broken JSON — makes it answer undefined, and the
// caller decodes the tree the ordinary way (decodeTree), which then decides. Values of the
// other fields are only checked to be JSON: a tree with a malformed name or time is still
// walked here (its references are certain), where decodeTree would refuse it.

/** Offsets of IDs (their first hex character) in the tree's bytes. */
export interface TreeRefs {
  data: number[];
  trees: number[];
}

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COLON = 0x3a,
  COMMA = 0x2c,
  LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d;

class Skim {
  i = 0;
  constructor(readonly b: Uint8Array) {}

  ws(): void {
    const b = this.b;
    let c = b[this.i];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++this.i];
  }

  /** Consumes `c` (after whitespace). */
  eat(c: number): boolean {
    this.ws();
    if (this.b[this.i] !== c) return false;
    this.i++;
    return true;
  }

  /** A string's raw bytes [from, to) without the quotes; `escaped` when it holds a backslash. Undefined if not a (valid) string. */
  string(): { from: number; to: number; escaped: boolean } | undefined {
    this.ws();
    const b = this.b;
    if (b[this.i] !== QUOTE) return undefined;
    const from = ++this.i;
    let escaped = false;
    for (;;) {
      const c = b[this.i];
      if (c === undefined || c < 0x20) return undefined;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        const e = b[++this.i];
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++) if (!isHex(b[this.i + k] ?? 0)) return undefined;
          this.i += 4;
        } else if (e === undefined || !ESCAPES.includes(e)) return undefined;
      }
      this.i++;
    }
    return { from, to: this.i++, escaped };
  }

  /** Skips any value; false if it is not well-formed. */
  skipValue(depth = 0): boolean {
    this.ws();
    const c = this.b[this.i];
    if (c === QUOTE) return this.string() !== undefined;
    if (c === LBRACE || c === LBRACKET) {
      if (depth > 64) return false;
      const close = c === LBRACE ? RBRACE : RBRACKET;
      this.i++;
      if (this.eat(close)) return true;
      for (;;) {
        if (c === LBRACE && (!this.string() || !this.eat(COLON))) return false;
        if (!this.skipValue(depth + 1)) return false;
        if (this.eat(close)) return true;
        if (!this.eat(COMMA)) return false;
      }
    }
    return this.literal();
  }

  /** true, false, null or a JSON number (what follows is the caller's to check). */
  literal(): boolean {
    const b = this.b;
    for (const word of WORDS) {
      let k = 0;
      while (k < word.length && b[this.i + k] === word[k]) k++;
      if (k === word.length) {
        this.i += k;
        return true;
      }
    }
    let i = this.i;
    if (b[i] === 0x2d) i++;
    if (b[i] === 0x30) i++;
    else if (isDigit(b[i]) && b[i] !== 0x30) while (isDigit(b[i])) i++;
    else return false;
    if (b[i] === 0x2e) {
      if (!isDigit(b[++i])) return false;
      while (isDigit(b[i])) i++;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      if (b[++i] === 0x2b || b[i] === 0x2d) i++;
      if (!isDigit(b[i])) return false;
      while (isDigit(b[i])) i++;
    }
    this.i = i;
    return true;
  }

  /** A 64-character lower-case hex string: its offset, or -1. */
  id(): number {
    const s = this.string();
    if (!s || s.to - s.from !== 64) return -1;
    for (let k = s.from; k < s.to; k++) if (!isLowerHex(this.b[k]!)) return -1;
    return s.from;
  }

  is(s: { from: number; to: number; escaped: boolean }, text: string): boolean {
    if (s.escaped || s.to - s.from !== text.length) return false;
    for (let k = 0; k < text.length; k++) if (this.b[s.from + k] !== text.charCodeAt(k)) return false;
    return true;
  }

  /**
   * Which of `names` a key is; 'other' for none. Undefined where Go's encoding/json (and
   * decodeTree) could still match one — written with escapes, or in other letter case.
   */
  key<N extends string>(s: { from: number; to: number; escaped: boolean }, names: readonly N[]): N | 'other' | undefined {
    if (s.escaped) return undefined;
    for (const name of names) {
      if (s.to - s.from !== name.length) continue;
      let exact = true,
        folded = true;
      for (let k = 0; k < name.length; k++) {
        const c = this.b[s.from + k]!;
        if (c !== name.charCodeAt(k)) exact = false;
        if ((c | 0x20) !== name.charCodeAt(k)) folded = false;
      }
      if (exact) return name;
      if (folded) return undefined;
    }
    return 'other';
  }
}

/** What may follow a backslash in a JSON string (besides u and four hex digits). */
const ESCAPES = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];
const WORDS = ['true', 'false', 'null'].map((w) => new TextEncoder().encode(w));
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isLowerHex(c) || (c >= 0x41 && c <= 0x46);
const isLowerHex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);

/** The references of a tree blob's JSON, or undefined when it must be decoded the ordinary way. */
export function treeRefs(b: Uint8Array): TreeRefs | undefined {
  const s = new Skim(b);
  const refs: TreeRefs = { data: [], trees: [] };
  let nodesSeen = false;
  if (!s.eat(LBRACE)) return undefined;
  if (!s.eat(RBRACE)) {
    for (;;) {
      const str = s.string();
      const key = str && s.key(str, ['nodes'] as const);
      if (!key || !s.eat(COLON)) return undefined;
      if (key === 'nodes') {
        if (nodesSeen || !readNodes(s, refs)) return undefined;
        nodesSeen = true;
      } else if (!s.skipValue()) return undefined;
      if (s.eat(RBRACE)) break;
      if (!s.eat(COMMA)) return undefined;
    }
  }
  s.ws();
  return s.i === b.length ? refs : undefined;
}

function readNodes(s: Skim, refs: TreeRefs): boolean {
  s.ws();
  if (s.b[s.i] === 0x6e) return s.skipValue(); // null
  if (!s.eat(LBRACKET)) return false;
  if (s.eat(RBRACKET)) return true;
  for (;;) {
    if (!readNode(s, refs)) return false;
    if (s.eat(RBRACKET)) return true;
    if (!s.eat(COMMA)) return false;
  }
}

const NODE_KEYS = ['type', 'content', 'subtree'] as const;

function readNode(s: Skim, refs: TreeRefs): boolean {
  if (!s.eat(LBRACE)) return false;
  let type: 'file' | 'dir' | 'other' | undefined;
  let content: number[] | null | undefined;
  let subtree: number | undefined;
  if (!s.eat(RBRACE)) {
    for (;;) {
      const str = s.string();
      const key = str && s.key(str, NODE_KEYS);
      if (!key || !s.eat(COLON)) return false;
      if (key === 'type') {
        if (type !== undefined) return false;
        const v = s.string();
        if (!v) return false;
        type = s.is(v, 'file') ? 'file' : s.is(v, 'dir') ? 'dir' : 'other';
      } else if (key === 'content') {
        if (content !== undefined) return false;
        content = readIDs(s);
        if (content === undefined) return false;
      } else if (key === 'subtree') {
        if (subtree !== undefined) return false;
        subtree = s.id();
        if (subtree < 0) return false;
      } else if (!s.skipValue()) return false;
      if (s.eat(RBRACE)) break;
      if (!s.eat(COMMA)) return false;
    }
  }
  if (type === 'file' && content) for (const at of content) refs.data.push(at);
  if (type === 'dir') {
    if (subtree === undefined) return false;
    refs.trees.push(subtree);
  }
  return true;
}

/** `null` or an array of IDs (offsets); undefined for anything else. */
function readIDs(s: Skim): number[] | null | undefined {
  s.ws();
  if (s.b[s.i] === 0x6e) {
    if (s.b[s.i + 1] !== 0x75 || s.b[s.i + 2] !== 0x6c || s.b[s.i + 3] !== 0x6c) return undefined;
    s.i += 4;
    return null;
  }
  if (!s.eat(LBRACKET)) return undefined;
  const out: number[] = [];
  if (s.eat(RBRACKET)) return out;
  for (;;) {
    const at = s.id();
    if (at < 0) return undefined;
    out.push(at);
    if (s.eat(RBRACKET)) return out;
    if (!s.eat(COMMA)) return undefined;
  }
}
