import { expect, test } from 'vitest';
import { defaultHostName, hostNameProblem } from './host-name';

const UA = {
  chromeLinux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  chromeWin: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  edgeWin: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0',
  firefoxWin: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
  webkitGtk: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36',
  chromeOS: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
};

test.each([
  [UA.chromeLinux, [{ brand: 'Google Chrome' }, { brand: 'Chromium' }], 'chrome-linux'],
  [UA.chromeLinux, [{ brand: 'Chromium' }, { brand: 'Not?A_Brand' }], 'chromium-linux'],
  [UA.chromeLinux, undefined, 'chrome-linux'],
  [UA.chromeWin, undefined, 'chrome-windows'],
  [UA.edgeWin, [{ brand: 'Microsoft Edge' }, { brand: 'Chromium' }], 'edge-windows'],
  [UA.firefoxWin, undefined, 'firefox-windows'],
  [UA.firefoxLinux, undefined, 'firefox-linux'],
  [UA.safariMac, undefined, 'safari-macos'],
  [UA.safariIphone, undefined, 'safari-ios'],
  [UA.webkitGtk, undefined, 'webkit-linux'],
  [UA.chromeAndroid, undefined, 'chrome-android'],
  [UA.chromeOS, undefined, 'chrome-chromeos'],
])('%s → %s', (userAgent, brands, want) => {
  expect(defaultHostName({ userAgent, brands })).toBe(want);
});

test('host name problems', () => {
  expect(hostNameProblem('laptop')).toBeUndefined();
  expect(hostNameProblem('  ')).toMatch(/Enter/);
  expect(hostNameProblem('x'.repeat(65))).toMatch(/64/);
  expect(hostNameProblem('a\nb')).toMatch(/letters/);
});
