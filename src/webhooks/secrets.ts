/**
 * Signing secrets: `whsec_` + base64 of 24 random bytes (the Standard Webhooks form). They must be
 * read again to sign, so they are stored encrypted (AES-256-GCM, key derived from SECRET_KEY) when
 * SECRET_KEY is set, and as they are otherwise. Never logged; shown once, masked after.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SEALED_PREFIX = 'aesgcm1:';

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** `whsec_abcd…wxyz`: enough to recognise it, nothing to sign with. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, SECRET_PREFIX.length + 4)}…${secret.slice(-4)}`;
}

/** The key bytes HMAC signs with: the base64 after the prefix. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** Seals and opens stored secrets; without a SECRET_KEY it stores them as they are. */
export class SecretBox {
  private readonly key: Buffer | null;

  constructor(secretKey: string | null | undefined) {
    this.key = secretKey ? createHash('sha256').update(`bellwether webhook secrets\0${secretKey}`).digest() : null;
  }

  seal(secret: string): string {
    if (!this.key) return secret;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
  }

  open(stored: string): string {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    if (!this.key) throw new Error('a webhook secret is stored encrypted but SECRET_KEY is not set');
    const [iv, tag, sealed] = stored.slice(SEALED_PREFIX.length).split(':');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  }
}
