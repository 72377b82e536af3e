import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { chainsTo, type CertificationAuthorities } from '../../cfdi/csd.ts';
import type { Environment } from '../../db/schema/index.ts';
import acUat2022 from './ca/AC_UAT_2022.cer' with { type: 'file' };
import arcUat2022 from './ca/ARC_UAT_2022.cer' with { type: 'file' };

/**
 * Who may issue an uploaded CSD, per environment. test: SAT's test authorities (AC UAT issued the 2023 test CSDs,
 * ARC UAT is its root). live: SAT's production authority files are not bundled yet, so live checks only that the
 * certificate is not self-signed and names SAT as its issuer, and refuses SAT's test CSDs (isTestCsd); to check the
 * full chain, add SAT's production certificates (its AC and root .cer files) to ./ca/ and import them into `live` below.
 */
const AUTHORITY_FILES: Record<Environment, { name: string; files: string[] }> = {
  test: { name: "SAT's test certification authorities (AC UAT, ARC UAT)", files: [acUat2022, arcUat2022] },
  live: { name: "SAT's certification authorities", files: [] },
};

let loaded: Record<Environment, CertificationAuthorities> | undefined;
export const satAuthorities = (environment: Environment): CertificationAuthorities =>
  (loaded ??= {
    test: { name: AUTHORITY_FILES.test.name, certificates: AUTHORITY_FILES.test.files.map((f) => new X509Certificate(readFileSync(f))) },
    live: { name: AUTHORITY_FILES.live.name, certificates: AUTHORITY_FILES.live.files.map((f) => new X509Certificate(readFileSync(f))) },
  })[environment];

/**
 * A test CSD: one SAT's test authorities issued (its chain verified, not its names read). It seals sandbox invoices
 * only; in live a PAC refuses its seal, so live neither stores nor uses one.
 */
export const isTestCsd = (certificateDer: Buffer): boolean => chainsTo(certificateDer, satAuthorities('test'));

export const TEST_CSD_IN_LIVE =
  "is a test CSD (issued by SAT's test certification authorities): a test CSD cannot sign live invoices; upload the CSD SAT issued to you, or use a sk_test_ key";
