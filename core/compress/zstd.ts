// A small, defensive binding to the zstd 1.5 WebAssembly build shipped in
// @bokuweb/zstd-wasm 0.0.27 (pinned exactly: the export names below are that build's
// minified Emscripten names). We bind the wasm ourselves instead of using the package's JS
// glue because (a) its entry points differ between Node (CJS, reads the file itself) and
// browsers, and (b) its decompress trusts the frame header's content size, so a corrupt
// frame can make it malloc garbage sizes. Here every size is checked and contexts are reused.

import { CairnError } from '../errors';
import { garbageMade } from '../memory/garbage';

/** klauspost's SpeedDefault, which restic's "auto" mode uses, is roughly zstd level 3. */
export const ZSTD_DEFAULT_LEVEL = 3;
/** Largest plain size we accept from a frame we did not size ourselves (index files can be big). */
const MAX_PLAIN = 1 << 30;
/** ZSTD_getFrameContentSize's "not a frame header" answer (0ULL - 2 as this build returns it). */
const CONTENTSIZE_ERROR = -2;
/** ZSTD_error_dstSize_tooSmall: the only failure worth retrying with a bigger buffer. */
const ERROR_DST_SIZE_TOO_SMALL = 70;

interface ZstdExports {
  f: WebAssembly.Memory;
  g: () => void; // __wasm_call_ctors
  h: (code: number) => number; // ZSTD_isError
  i: (n: number) => number; // ZSTD_compressBound
  j: () => number; // ZSTD_createCCtx
  l: (cctx: number, dst: number, cap: number, src: number, n: number, dict: number, dictLen: number, level: number) => number;
  n: () => number; // ZSTD_createDCtx
  p: (src: number, n: number) => number | bigint; // ZSTD_getFrameContentSize
  q: (dctx: number, dst: number, cap: number, src: number, n: number, dict: number, dictLen: number) => number;
  s: (n: number) => number; // malloc
  t: (p: number) => void; // free
}

interface Zstd {
  x: ZstdExports;
  cctx: number;
  dctx: number;
}

let zstd: Zstd | undefined;
let zstdModule: WebAssembly.Module | undefined;
let loading: Promise<void> | undefined;

/**
 * Inputs (or expected outputs) above this size are worked on in an instance of their own,
 * dropped afterwards: wasm memory never shrinks, and one large tree (a folder of 200 000
 * files: ~65 MB of JSON, the same again for the output) would otherwise keep the shared
 * instance at that size for the rest of the process.
 */
const SCRATCH_FROM = 4 << 20;
/** ZSTD_FRAMEHEADERSIZE_MAX: the most bytes a frame header takes. */
const FRAME_HEADER_MAX = 18;

function imports(getMemory: () => WebAssembly.Memory): WebAssembly.Imports {
  const fail = (what: string) => () => {
    throw new CairnError('INTERNAL', `zstd wasm ${what}`);
  };
  return {
    a: {
      a: fail('exited'), // proc_exit
      b: () => {}, // emscripten_runtime_keepalive_clear
      c: fail('aborted'), // abort
      d: () => 0, // setitimer (unused by the codec)
      e: (requested: number) => {
        // emscripten_resize_heap: grow linear memory to at least `requested` bytes.
        const mem = getMemory();
        const want = requested >>> 0;
        if (want > 2 ** 31) return 0;
        const grow = Math.ceil((Math.max(want, mem.buffer.byteLength * 1.25) - mem.buffer.byteLength) / 65536);
        try {
          mem.grow(grow);
          return 1;
        } catch {
          return 0;
        }
      },
    },
  };
}

/**
 * Loads the zstd module once per thread from the bytes of zstd.wasm, which each runtime
 * supplies (Node reads node_modules, the browser fetches the bundled asset).
 */
export function initZstd(wasm: () => Promise<BufferSource>): Promise<void> {
  loading ??= (async () => {
    const module = await WebAssembly.compile(await wasm());
    let memory: WebAssembly.Memory | undefined;
    const instance = await WebAssembly.instantiate(
      module,
      imports(() => memory!),
    );
    memory = (instance.exports as unknown as ZstdExports).f;
    zstd = start(instance);
    zstdModule = module;
  })();
  return loading;
}

function start(instance: WebAssembly.Instance): Zstd {
  const x = instance.exports as unknown as ZstdExports;
  for (const name of ['f', 'g', 'h', 'i', 'j', 'l', 'n', 'p', 'q', 's', 't'] as const) {
    if (!(name in x)) throw new CairnError('INTERNAL', 'zstd.wasm is not the pinned @bokuweb/zstd-wasm 0.0.27 build');
  }
  x.g();
  return { x, cctx: x.j(), dctx: x.n() };
}

/** The shared instance, or for `size` bytes above SCRATCH_FROM a new one that the caller lets go. */
function instanceFor(size: number): Zstd {
  const shared = get();
  if (size <= SCRATCH_FROM || !zstdModule) return shared;
  let memory: WebAssembly.Memory | undefined;
  try {
    const instance = new WebAssembly.Instance(
      zstdModule,
      imports(() => memory!),
    );
    memory = (instance.exports as unknown as ZstdExports).f;
    return start(instance);
  } catch {
    return shared; // where synchronous instantiation is refused (a browser's main thread)
  }
}

/** Bytes of the shared instance's memory (it only ever grows). */
export function zstdMemoryBytes(): number {
  return get().x.f.buffer.byteLength;
}

export function zstdReady(): boolean {
  return zstd !== undefined;
}

function get(): Zstd {
  if (!zstd) throw new CairnError('INTERNAL', 'zstd used before initZstd() finished');
  return zstd;
}

function copyIn(z: Zstd, data: Uint8Array): number {
  const p = z.x.s(Math.max(1, data.length));
  if (p === 0) throw new CairnError('INTERNAL', 'zstd: out of memory');
  new Uint8Array(z.x.f.buffer, p, data.length).set(data);
  return p;
}

export function compress(data: Uint8Array, level = ZSTD_DEFAULT_LEVEL): Uint8Array {
  const z = instanceFor(data.length);
  const cap = z.x.i(data.length);
  const src = copyIn(z, data);
  const dst = z.x.s(cap);
  try {
    if (dst === 0) throw new CairnError('INTERNAL', 'zstd: out of memory');
    const n = z.x.l(z.cctx, dst, cap, src, data.length, 0, 0, level);
    if (z.x.h(n)) throw new CairnError('INTERNAL', `zstd compression failed (${n})`);
    garbageMade(n >>> 0);
    return new Uint8Array(z.x.f.buffer, dst, n >>> 0).slice();
  } finally {
    z.x.t(src);
    if (dst) z.x.t(dst);
  }
}

/** The content size a frame's header declares (ZSTD_getFrameContentSize), read from its first bytes in the shared instance. */
function declaredSize(frame: Uint8Array): number {
  const z = get();
  const src = copyIn(z, frame.subarray(0, FRAME_HEADER_MAX));
  try {
    return Number(z.x.p(src, Math.min(frame.length, FRAME_HEADER_MAX)));
  } finally {
    z.x.t(src);
  }
}

/**
 * Decompresses one frame, never to more than `maxSize` bytes (default 1 GiB: wasm memory is
 * never given back, so a frame that expands without end — a decompression bomb — must stop at
 * a limit, not at the end of memory). `plainSize` is the expected size when known (a blob's
 * `uncompressed_length`): the frame must produce exactly that many bytes, and decoding stops
 * there. A frame that declares its size is taken at its word only if the size is allowed; one
 * that does not (restic's unpacked files — index, snapshots, locks — are written without one)
 * is decoded into a buffer that grows until the frame fits, so memory follows what the frame
 * really holds, not what anyone claims.
 *
 * With `view`, a frame large enough for an instance of its own (SCRATCH_FROM) comes back as a
 * view of that instance's memory instead of a copy: for callers that read the bytes and drop
 * them (trees), it saves copying tens of MB into fresh pages. Such a view cannot be transferred
 * to another thread, and it keeps the instance's memory (the frame too) until it is dropped.
 * With `into` (a caller's reused buffer, at least `plainSize` bytes), the result is a view of it.
 */
export function decompress(frame: Uint8Array, plainSize?: number, maxSize = MAX_PLAIN, opts?: { view?: boolean; into?: Uint8Array }): Uint8Array {
  const z = instanceFor(Math.max(frame.length, plainSize ?? 0, Math.min(declaredSize(frame), MAX_PLAIN)));
  const keep = opts?.view === true && z !== zstd; // (the shared instance's memory is used again)
  const out: Out = keep ? 'view' : (opts?.into ?? 'copy');
  const limit = Math.min(maxSize, MAX_PLAIN);
  if (plainSize !== undefined && plainSize > limit) {
    throw new CairnError('DECOMPRESS_FAILED', `expected ${plainSize} bytes, more than the ${limit} allowed`);
  }
  const src = copyIn(z, frame);
  try {
    const declared = Number(z.x.p(src, frame.length));
    // ZSTD_CONTENTSIZE_ERROR (-2: not a zstd frame, or too short to have a header — an empty
    // input too) fails here and never reaches the grow-and-retry loop below, which would grow
    // the wasm heap to 1 GiB (for good: wasm memory never shrinks) before giving up.
    if (declared === CONTENTSIZE_ERROR) throw new CairnError('DECOMPRESS_FAILED', 'not a zstd frame (corrupt or truncated)');
    if (plainSize !== undefined && declared >= 0 && declared !== plainSize) {
      throw new CairnError('DECOMPRESS_FAILED', `zstd frame declares ${declared} bytes, expected ${plainSize}`);
    }
    if (declared >= 0) {
      if (declared > limit) throw new CairnError('DECOMPRESS_FAILED', `zstd frame declares ${declared} bytes, more than the ${limit} allowed`);
      return decompressInto(z, src, frame.length, declared, true, out);
    }
    const most = plainSize ?? limit;
    for (let cap = Math.min(most, Math.max(64 * 1024, frame.length * 16)); ; cap = Math.min(most, cap * 2)) {
      const got = decompressInto(z, src, frame.length, cap, false, out);
      if (got) {
        if (plainSize !== undefined && got.length !== plainSize) {
          throw new CairnError('DECOMPRESS_FAILED', `zstd frame gave ${got.length} bytes, expected ${plainSize}`);
        }
        return got;
      }
      if (cap >= most) {
        throw new CairnError(
          'DECOMPRESS_FAILED',
          plainSize !== undefined ? `zstd frame holds more than the ${plainSize} bytes expected` : `zstd frame is corrupt or expands beyond ${limit} bytes`,
        );
      }
    }
  } finally {
    z.x.t(src);
  }
}

/**
 * Where a result goes: a copy of its own, a view of the instance's memory (an instance about
 * to be dropped), or a view of the caller's buffer (copied there when it fits, else a copy).
 */
type Out = 'copy' | 'view' | Uint8Array;

/** One decompression attempt into `cap` bytes; undefined (when !exact) if it fails. */
function decompressInto(z: Zstd, src: number, srcLen: number, cap: number, exact: true, to: Out): Uint8Array;
function decompressInto(z: Zstd, src: number, srcLen: number, cap: number, exact: false, to: Out): Uint8Array | undefined;
function decompressInto(z: Zstd, src: number, srcLen: number, cap: number, exact: boolean, to: Out): Uint8Array | undefined {
  const dst = z.x.s(Math.max(1, cap));
  if (dst === 0) throw new CairnError('DECOMPRESS_FAILED', 'zstd: out of memory');
  let kept = false;
  try {
    const n = z.x.q(z.dctx, dst, cap, src, srcLen, 0, 0);
    if (z.x.h(n)) {
      // Only "destination too small" means "try a bigger buffer"; any other error (a corrupt or
      // truncated frame) fails at once rather than being retried with doubling buffers.
      if (exact || -(n | 0) !== ERROR_DST_SIZE_TOO_SMALL) throw new CairnError('DECOMPRESS_FAILED', 'zstd frame is corrupt');
      return undefined;
    }
    if (exact && n >>> 0 !== cap) throw new CairnError('DECOMPRESS_FAILED', `zstd frame gave ${n >>> 0} bytes, expected ${cap}`);
    const out = new Uint8Array(z.x.f.buffer, dst, n >>> 0);
    if (to === 'view') {
      kept = true;
      return out;
    }
    if (to !== 'copy' && to.length >= out.length) {
      to.set(out);
      return to.subarray(0, out.length);
    }
    garbageMade(n >>> 0);
    return out.slice();
  } finally {
    if (!kept) z.x.t(dst);
  }
}
