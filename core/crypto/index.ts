// restic's cryptography (internal/crypto, docs/restic-format.md §2): the master key (AES-256-CTR key
// plus Poly1305-AES MAC key), sealing as IV || ciphertext || MAC, and the primitives each
// runtime installs (WebCrypto or WebAssembly in browsers, node:crypto in the CLI).
export { Key, type MasterKeyJSON } from './keys';
export { seal, sealInto, open, IV_SIZE, MAC_SIZE, EXTENSION } from './seal';
export { primitives, setPrimitives, type Primitives } from './primitives';
