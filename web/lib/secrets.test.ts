import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from './secrets';

describe('secrets', () => {
  it('round-trips with the password and the entry it is bound to, and nothing else', async () => {
    const s = await encryptSecret({ key: 'AKIA', secret: 'shh' }, 'pw', 'entry-1', 1000);
    expect(new TextDecoder().decode(s.ciphertext)).not.toContain('shh');
    expect(await decryptSecret(s, 'pw', 'entry-1')).toEqual({ key: 'AKIA', secret: 'shh' });
    await expect(decryptSecret(s, 'wrong', 'entry-1')).rejects.toMatchObject({ code: 'SECRET_UNREADABLE' });
    await expect(decryptSecret(s, 'pw', 'entry-2')).rejects.toMatchObject({ code: 'SECRET_UNREADABLE' });
  });

  it('uses a fresh salt and IV each time', async () => {
    const [a, b] = await Promise.all([encryptSecret('x', 'pw', 'e', 1000), encryptSecret('x', 'pw', 'e', 1000)]);
    expect(a.salt).not.toEqual(b.salt);
    expect(a.iv).not.toEqual(b.iv);
  });
});
