import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The machine's signing rate, the ceiling the issuing benches are measured against: RSA-2048 SHA-256 signatures of a
 * 1 KB cadena with the EKU9003173C9 test CSD, on one thread for 3 s (an invoice costs two: its Sello and the TFD's).
 */
export function signaturesPerSecond(): number {
  const csd = new URL('../tests/fixtures/csd/EKU9003173C9_CSD/', import.meta.url).pathname;
  const key = createPrivateKey({ key: readFileSync(`${csd}EKU9003173C9.key`), format: 'der', type: 'pkcs8', passphrase: '12345678a' });
  const cadena = Buffer.from('||4.0|A|1|2026-11-21T12:00:00|03|'.padEnd(1024, 'Servicio de consultoría|84111506|E48|'), 'utf8');
  let signs = 0;
  const started = performance.now();
  while (performance.now() - started < 3000) {
    sign('sha256', cadena, key);
    signs++;
  }
  return signs / ((performance.now() - started) / 1000);
}
