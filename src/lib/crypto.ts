import { hash, randomBytes } from 'node:crypto';

// One-shot: a third of createHash().update().digest()'s cost, and every API-key request hashes its key.
export const sha256Hex = (value: string | Uint8Array): string => hash('sha256', value, 'hex');

/** URL-safe random secret with `bytes` bytes of entropy. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
