// The host name new snapshots carry (restic's `--host`): one per browser profile, kept on this
// device. restic files snapshots by host: a backup's parent is the newest snapshot of the same
// host and paths, and `forget` groups by host and paths. So the default is a name a person
// recognises and that stays the same across visits — the browser and the system
// ("chrome-linux", "firefox-windows") — not a random one.

export interface BrowserIdentity {
  userAgent: string;
  /** navigator.userAgentData.brands, where the browser has it (Chromium). */
  brands?: readonly { brand: string }[];
}

function browserName(id: BrowserIdentity): string {
  const ua = id.userAgent;
  const brands = (id.brands ?? []).map((b) => b.brand);
  if (/\bEdg(e|A|iOS)?\//.test(ua) || brands.includes('Microsoft Edge')) return 'edge';
  if (/\bOPR\//.test(ua) || brands.includes('Opera')) return 'opera';
  if (brands.includes('Brave')) return 'brave';
  if (/\b(Firefox|FxiOS)\//.test(ua)) return 'firefox';
  if (brands.includes('Google Chrome') || /\bCriOS\//.test(ua)) return 'chrome';
  if (brands.includes('Chromium')) return 'chromium';
  if (/\bChrome\//.test(ua)) return 'chrome';
  if (/\bSafari\//.test(ua) && /\bVersion\//.test(ua)) return /Macintosh|iPhone|iPad/.test(ua) ? 'safari' : 'webkit';
  return 'browser';
}

function systemName(ua: string): string {
  if (/iPhone|iPad|iPod/.test(ua)) return 'ios';
  if (/Android/.test(ua)) return 'android';
  if (/CrOS/.test(ua)) return 'chromeos';
  if (/Windows/.test(ua)) return 'windows';
  if (/Macintosh|Mac OS X/.test(ua)) return 'macos';
  if (/Linux|X11|BSD/.test(ua)) return 'linux';
  return 'web';
}

/** "chrome-linux", "firefox-windows", "safari-macos" … */
export function defaultHostName(id: BrowserIdentity): string {
  return `${browserName(id)}-${systemName(id.userAgent)}`;
}

/** This browser's default. */
export function thisBrowserHostName(): string {
  const nav = navigator as Navigator & { userAgentData?: { brands?: { brand: string }[] } };
  return defaultHostName({ userAgent: nav.userAgent, brands: nav.userAgentData?.brands });
}

const HOST_NAME_MAX = 64;

/** Why a typed host name cannot be used, or undefined. */
export function hostNameProblem(name: string): string | undefined {
  const n = name.trim();
  if (!n) return 'Enter a name.';
  if (n.length > HOST_NAME_MAX) return `Use at most ${HOST_NAME_MAX} characters.`;
  if (/[\u0000-\u001f\u007f]/.test(n)) return 'Use letters, digits and punctuation only.';
  return undefined;
}
