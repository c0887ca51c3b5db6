import { describe, expect, it } from 'vitest';
import { userKeyDerivation } from '../core/repository/keyfile';
import { PreparedDerivations, type Scrypt } from './prepared-derivations';

/** A scrypt stand-in that counts its calls and answers with the call's number. */
function counting(fail: (n: number) => boolean = () => false) {
  const calls: string[] = [];
  const scrypt: Scrypt = async (password) => {
    calls.push(new TextDecoder().decode(password));
    if (fail(calls.length)) throw new Error('worker died');
    return new Uint8Array([calls.length]);
  };
  return { calls, scrypt };
}

/** Timers driven by hand: `fire()` runs every pending one. */
function handTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  return {
    timers: { setTimeout: (f: () => void) => (pending.set(++next, f), next), clearTimeout: (t: unknown) => void pending.delete(t as number) },
    fire: () => [...pending.values()].forEach((f) => f()),
    get pending() {
      return pending.size;
    },
  };
}

const salt = new Uint8Array(64).fill(7);
const params = { N: 1024, r: 8, p: 1 };
const input = (pw: string, s = salt) => {
  const d = userKeyDerivation(pw, s, params);
  return [d.password, d.salt, d.N, d.r, d.p, d.dkLen] as const;
};

describe('prepared derivations', () => {
  it('hands the prepared result to the matching request, once', async () => {
    const { calls, scrypt } = counting();
    const t = handTimers();
    const prep = new PreparedDerivations(scrypt, { timers: t.timers });
    prep.prepare(userKeyDerivation('secret', salt, params));
    expect(await prep.derive(...input('secret'))).toEqual(new Uint8Array([1]));
    expect(calls).toEqual(['secret']);
    expect(prep.size).toBe(0);
    expect(t.pending).toBe(0);
    expect(await prep.derive(...input('secret'))).toEqual(new Uint8Array([2])); // not twice
  });

  it('derives afresh for another password, salt or parameter set', async () => {
    const { calls, scrypt } = counting();
    const prep = new PreparedDerivations(scrypt, { timers: handTimers().timers });
    prep.prepare(userKeyDerivation('secret', salt, params));
    expect(await prep.derive(...input('other'))).toEqual(new Uint8Array([2]));
    prep.prepare(userKeyDerivation('secret', salt, params));
    expect(await prep.derive(...input('secret', new Uint8Array(64).fill(8)))).toEqual(new Uint8Array([4]));
    prep.prepare(userKeyDerivation('secret', salt, params));
    const [pw, s, , r, p, len] = input('secret');
    expect(await prep.derive(pw, s, 2048, r, p, len)).toEqual(new Uint8Array([6]));
    expect(calls).toEqual(['secret', 'other', 'secret', 'secret', 'secret', 'secret']);
  });

  it('forgets a prepared result nobody asked for when its time is up', async () => {
    const { calls, scrypt } = counting();
    const t = handTimers();
    const prep = new PreparedDerivations(scrypt, { timers: t.timers });
    prep.prepare(userKeyDerivation('secret', salt, params));
    expect(prep.size).toBe(1);
    t.fire();
    expect(prep.size).toBe(0);
    expect(await prep.derive(...input('secret'))).toEqual(new Uint8Array([2]));
    expect(calls).toHaveLength(2);
  });

  it('derives again when the prepared derivation failed', async () => {
    const { calls, scrypt } = counting((n) => n === 1);
    const prep = new PreparedDerivations(scrypt, { timers: handTimers().timers });
    prep.prepare(userKeyDerivation('secret', salt, params));
    expect(await prep.derive(...input('secret'))).toEqual(new Uint8Array([2]));
    expect(calls).toEqual(['secret', 'secret']);
  });

  it('keeps its own copy of the password and wipes it when the result is taken', async () => {
    const { scrypt } = counting();
    const prep = new PreparedDerivations(scrypt, { timers: handTimers().timers });
    const d = userKeyDerivation('secret', salt, params);
    prep.prepare(d);
    d.password.fill(0); // the caller's bytes may be reused
    expect(await prep.derive(...input('secret'))).toEqual(new Uint8Array([1]));
  });
});
