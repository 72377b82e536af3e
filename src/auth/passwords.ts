/** argon2id cost. Production uses OWASP's minimum (19 MiB, 2 passes); tests pass a cheaper one. */
export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
}

const DEFAULT_PASSWORD_COST: PasswordCost = { memoryCost: 19456, timeCost: 2 };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** For the operator's command line, which has nothing else to do meanwhile. */
  hashSync(password: string): string;
  verify(password: string, hash: string): Promise<boolean>;
  /** Spend the same time as a real verify, so an unknown email is not told apart by timing. */
  verifyDummy(password: string): Promise<false>;
}

export function createPasswordHasher(cost: PasswordCost = DEFAULT_PASSWORD_COST): PasswordHasher {
  const options = { algorithm: 'argon2id' as const, ...cost };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => Bun.password.hash(password, options),
    hashSync: (password) => Bun.password.hashSync(password, options),
    verify: (password, hash) => Bun.password.verify(password, hash),
    async verifyDummy(password) {
      dummy ??= Bun.password.hash('dummy password for timing', options);
      await Bun.password.verify(password, await dummy);
      return false;
    },
  };
}
