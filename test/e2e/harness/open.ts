// What the engine specs share: opening the harness page, and running restic synchronously.

import { execFileSync } from 'node:child_process';
import { expect, type Page } from '@playwright/test';

/** Loads the harness page and waits until its engine is ready. */
export async function openHarness(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.locator('#status')).toHaveText('ready');
}

/** restic without its cache; stdout, or a throw with its stderr. */
export function restic(args: string[], env: Record<string, string>): string {
  return execFileSync('restic', ['--no-cache', ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}
