import { describe, expect, it } from 'vitest';
import { Running } from './running';

describe('Running', () => {
  it('is idle at once with nothing running, and only after the last of several runs settles', async () => {
    const r = new Running();
    await r.idle();
    const gates: (() => void)[] = [];
    const work = () => new Promise<void>((res) => gates.push(res));
    const a = r.run(work);
    const b = r.run(() => work().then(() => Promise.reject(new Error('failed'))));
    expect(r.count).toBe(2);
    let idle = false;
    const waited = r.idle().then(() => (idle = true));
    gates[0]!();
    await a;
    await new Promise((res) => setTimeout(res, 0));
    expect(idle).toBe(false);
    gates[1]!();
    await expect(b).rejects.toThrow('failed');
    await waited;
    expect(r.count).toBe(0);
  });
});
