// The Content-Security-Policy, in one place: index.html gets it as a <meta> (via the plugin in
// vite.config.ts) and the dev/preview servers send it as a header, which is what also covers
// the workers and the service worker (a <meta> policy does not reach them).
//
// - no inline script and no eval: only 'self' scripts; 'wasm-unsafe-eval' lets the chunker,
//   Poly1305 and zstd WASM compile (WebAssembly.Module is "eval" to CSP without it);
// - connect-src https: http: because a repository can live in any S3/B2 endpoint the user
//   types in (radosgw on http://127.0.0.1 in tests) — we cannot list them at build time;
// - frame-ancestors only works as a header, so it is left out of the <meta>.

export function contentSecurityPolicy(opts: { dev?: boolean; meta?: boolean } = {}): string {
  const directives: [string, string][] = [
    ['default-src', "'self'"],
    ['script-src', "'self' 'wasm-unsafe-eval'"],
    ['worker-src', "'self'"],
    ['style-src', "'self'"],
    ['img-src', "'self' data: blob:"],
    ['font-src', "'self'"],
    ['connect-src', `'self' https: http:${opts.dev ? ' ws: wss:' : ''}`],
    ['manifest-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'self'"],
    ['form-action', "'self'"],
  ];
  if (!opts.meta) directives.push(['frame-ancestors', "'none'"]);
  return directives.map(([k, v]) => `${k} ${v}`).join('; ');
}

export const securityHeaders: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // Lets the engine use SharedArrayBuffer / precise timers later without a second deploy step.
  'Cross-Origin-Opener-Policy': 'same-origin',
};
