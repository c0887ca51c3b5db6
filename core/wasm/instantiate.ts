// Synchronous, memoised instantiation of the bundled modules. Synchronous compilation is fine
// in workers and Node; browsers limit it on the main thread, which never runs this code
// (docs/architecture.md, conventions 2: WebAssembly is initialised in workers and Node, never
// on the page). The modules import nothing.

/** Decodes standard base64 (the generated modules) into bytes. */
export function decodeBase64(b64: string): Uint8Array {
  const text = atob(b64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Instantiates a module from base64 the first time the returned function is called. */
export function lazyInstance<Exports>(wasmBase64: string): () => Exports {
  let exports: Exports | undefined;
  return () => {
    if (exports === undefined) {
      const module = new WebAssembly.Module(decodeBase64(wasmBase64) as BufferSource);
      exports = new WebAssembly.Instance(module, {}).exports as Exports;
    }
    return exports;
  };
}
