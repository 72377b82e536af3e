import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { createSatCertificateSource } from '../../src/pac/sat-certificates.ts';
import { testSandboxSat } from '../helpers.ts';
import { startSatMock } from '../sat-mock/sat-mock.ts';

const SERIAL = '30001000000500003456';
const DER = readFileSync(new URL(`../fixtures/csd/sat-timbrado/${SERIAL}.cer`, import.meta.url).pathname);

/** A fetch that records the URLs asked and answers from `answer`. */
function recording(answer: (url: string) => Response | Promise<Response>) {
  const urls: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = String(input);
    urls.push(url);
    return answer(url);
  }) as typeof globalThis.fetch;
  return { urls, fetch };
}

describe('SAT certificate repository', () => {
  test("the path SAT uses, from the serial's first 18 digits; found once, then from memory", async () => {
    const r = recording(() => new Response(new Uint8Array(DER)));
    const source = createSatCertificateSource({ baseUrl: 'https://rdc.example/rccf/', fetch: r.fetch });
    expect(await source(SERIAL)).toEqual(DER);
    expect(await source(SERIAL)).toEqual(DER);
    expect(r.urls).toEqual([`https://rdc.example/rccf/300010/000005/00/00/34/${SERIAL}.cer`]);
  });

  test('concurrent lookups of one serial share one fetch; a 404 is remembered for ten minutes', async () => {
    let now = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = recording(async () => {
      await gate;
      return new Response('Not Found', { status: 404 });
    });
    const source = createSatCertificateSource({ fetch: r.fetch, now: () => now });
    const both = Promise.all([source(SERIAL), source(SERIAL)]);
    release();
    expect(await both).toEqual([undefined, undefined]);
    expect(await source(SERIAL)).toBeUndefined();
    expect(r.urls.length).toBe(1);
    now += 10 * 60_000;
    expect(await source(SERIAL)).toBeUndefined();
    expect(r.urls.length).toBe(2);
  });

  test("the sandbox's own certificate without a fetch; a serial that is not 20 digits never reaches a URL; a 5xx throws", async () => {
    const r = recording(() => new Response('boom', { status: 503 }));
    const sandbox = testSandboxSat();
    const source = createSatCertificateSource({ fetch: r.fetch, sandboxSat: sandbox });
    expect(await source(sandbox.noCertificado)).toEqual(sandbox.certificateDer);
    expect(await source('../../etc/passwd')).toBeUndefined();
    expect(r.urls).toEqual([]);
    await expect(source(SERIAL)).rejects.toThrow(/answered 503/);
  });

  test("against the SAT mock's repository: a PEM copy is read as DER", async () => {
    const mock = startSatMock();
    try {
      const source = createSatCertificateSource({ baseUrl: mock.certificatesUrl });
      expect(await source(SERIAL)).toEqual(DER);
      expect(await source('30001000000500009999')).toBeUndefined();
      const pem = `-----BEGIN CERTIFICATE-----\n${DER.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;
      const fromPem = createSatCertificateSource({ fetch: recording(() => new Response(pem)).fetch });
      expect(await fromPem(SERIAL)).toEqual(DER);
    } finally {
      mock.stop();
    }
  });
});
