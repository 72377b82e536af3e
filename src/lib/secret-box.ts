import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;

/**
 * AES-256-GCM under the master key. `context` (e.g. the row id) is authenticated but not stored, so a ciphertext
 * copied onto another row does not open. Layout: version (1) | iv (12) | tag (16) | ciphertext.
 */
export function sealSecret(masterKey: Buffer, plaintext: Buffer, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
}

export class SecretBoxError extends Error {}

export function openSecret(masterKey: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < 29 || sealed[0] !== VERSION) throw new SecretBoxError('unknown secret format');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, sealed.subarray(1, 13));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(sealed.subarray(13, 29));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
  } catch {
    throw new SecretBoxError('cannot decrypt: the master key is not the one that encrypted this secret');
  }
}
