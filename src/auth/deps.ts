import type { Db } from '../db/client.ts';
import type { PasswordHasher } from './passwords.ts';
import type { AccessTokens } from './tokens.ts';

export interface AuthDeps {
  db: Db;
  now: () => Date;
  hasher: PasswordHasher;
  accessTokens: AccessTokens;
}
