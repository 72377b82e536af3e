import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { unauthenticated } from '../lib/service-error.ts';
import type { AccessClaims } from '../lib/identity.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 24 * 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
const ISSUER = 'cfdi-api';
const AUDIENCE = 'cfdi-api/v1';

export interface AccessTokens {
  sign(claims: AccessClaims, now: Date): Promise<string>;
  verify(token: string, now: Date): Promise<AccessClaims>;
}

export function createAccessTokens(secret: string): AccessTokens {
  const key = new TextEncoder().encode(secret);
  return {
    sign: (claims, now) => {
      const iat = Math.floor(now.getTime() / 1000);
      return new SignJWT({ tid: claims.tid, ver: claims.ver })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
        .sign(key);
    },
    async verify(token, now) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: now,
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        if (typeof payload.tid !== 'string' || typeof payload.ver !== 'number') throw unauthenticated('Invalid access token');
        return { sub: payload.sub!, tid: payload.tid, ver: payload.ver, exp: payload.exp };
      } catch (err) {
        // The common case after a day: say the way out, which a client may not know is there.
        if (err instanceof joseErrors.JWTExpired)
          throw unauthenticated('Access token expired: get a new one with POST /api/v1/auth/refresh (your refresh token), or log in again');
        throw unauthenticated('Invalid access token');
      }
    },
  };
}
