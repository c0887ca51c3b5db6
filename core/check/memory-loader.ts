// A Loader over bytes already in memory (check reads a whole pack once, then parses it).

import type { Loader } from '../backend/backend';

export function memoryLoader(bytes: Uint8Array): Loader {
  return {
    async load(_h, opts = {}) {
      const start = opts.offset ?? 0;
      const end = opts.length ? start + opts.length : bytes.length;
      return bytes.subarray(start, Math.min(end, bytes.length));
    },
  };
}
