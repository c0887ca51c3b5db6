// Remembered credentials (S3 keys, a presign endpoint URL) encrypted with the repository
// password, so the database never holds them in the clear and a copy of the browser profile
// is useless without the password.
//
// Choice: AES-256-GCM with a key derived by PBKDF2-SHA-256 (600,000 iterations, OWASP 2023)
// from the repository password and a random 16-byte salt; a fresh 12-byte IV per encryption;
// the remembered entry's ID as additional data so a blob cannot be moved to another entry.
// Rejected: a non-extractable CryptoKey kept in IndexedDB — it stops a key from being copied
// out, but any script running in this origin could still decrypt, and unlocking would not
// need the password. Here the password the user types anyway unlocks both the repository
// and its credentials, and WebCrypto runs PBKDF2 off the UI thread.

export interface EncryptedSecret {
  v: 1;
  kdf: 'PBKDF2-SHA-256';
  iterations: number;
  salt: Uint8Array;
  iv: Uint8Array;
  ciphertext: Uint8Array;
}

const PBKDF2_ITERATIONS = 600_000;

async function deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export async function encryptSecret(value: unknown, password: string, boundTo: string, iterations = PBKDF2_ITERATIONS): Promise<EncryptedSecret> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(password, salt, iterations);
  const plain = new TextEncoder().encode(JSON.stringify(value));
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(boundTo) }, key, plain);
  plain.fill(0);
  return { v: 1, kdf: 'PBKDF2-SHA-256', iterations, salt, iv, ciphertext: new Uint8Array(ct) };
}

/** Rejects with code SECRET_UNREADABLE when the password (or the entry) does not match. */
export async function decryptSecret<T>(secret: EncryptedSecret, password: string, boundTo: string): Promise<T> {
  const key = await deriveKey(password, secret.salt, secret.iterations);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: secret.iv as BufferSource, additionalData: new TextEncoder().encode(boundTo) },
      key,
      secret.ciphertext as BufferSource,
    );
  } catch {
    throw { code: 'SECRET_UNREADABLE', message: 'the password does not decrypt the saved credentials', retryable: false };
  }
  return JSON.parse(new TextDecoder().decode(plain)) as T;
}
