import { afterAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { verifyEnveloped } from '../../src/cfdi/cancellation.ts';
import { createFinkokPac } from '../../src/pac/finkok.ts';
import { concepto, createTestApp, csdFiles, ingreso, issuer, until } from '../helpers.ts';
import { createSwPac } from '../../src/pac/sw.ts';
import { createFinkokMock } from './finkok-mock.ts';
import { uuidsPerDocument } from './mock-ledger.ts';
import { createSwMock } from './sw-mock.ts';

const mock = await createFinkokMock({ slowMs: 600, notFoundMs: 400 });
afterAll(() => mock.close());
const pacWith = (o: { timeoutMs?: number; password?: string } = {}) =>
  createFinkokPac({
    url: mock.url,
    username: mock.username,
    password: o.password ?? mock.password,
    timeoutMs: o.timeoutMs ?? 2000,
    satConsultaUrl: mock.satConsultaUrl,
  });
const pac = pacWith();

let n = 0;
/** A sealed document as the adapter sees it: what matters to Finkok is its Sello and the Emisor's RFC. */
const sealed = (rfc = 'EKU9003173C9') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0" Sello="c2VsbG8t${++n}-${Date.now()}" Total="116.00"><cfdi:Emisor Rfc="${rfc}" Nombre="A &amp; B"/></cfdi:Comprobante>`;
const last = (operation: string) => mock.requests.filter((r) => r.operation === operation).at(-1)!;
const sello = (xml: string) => /Sello="([^"]*)"/.exec(xml)![1]!;

describe('Finkok adapter against its SOAP mock', () => {
  test('stamp: a SOAP 1.1 envelope to /servicios/soap/stamp with the base64 document and the credentials; the reply is the stamped XML', async () => {
    mock.setScenario('ok');
    const doc = sealed();
    const res = await pac.stamp(doc, { tenantId: 'ten_1' });
    expect(res.ok).toBe(true);
    const sent = last('stamp');
    expect(sent.path).toBe('/servicios/soap/stamp');
    expect(sent.soapAction).toBe('"stamp"');
    expect(sent.body).toContain('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:f="http://facturacion.finkok.com/stamp">');
    expect(sent.fields.username).toBe(mock.username);
    expect(sent.fields.password).toBe(mock.password);
    expect(Buffer.from(sent.fields.xml!, 'base64').toString('utf8')).toBe(doc);
    if (!res.ok) return;
    expect(res.tfd.selloCfd).toBe(sello(doc));
    expect(mock.ledger.find(sello(doc))!.uuid).toBe(res.tfd.uuid);
    expect(res.xml).toContain('<tfd:TimbreFiscalDigital');
    // The escaped XML's character references decoded: the document comes back as it was sent, its line break included.
    expect(res.xml).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<cfdi:Comprobante');
    // A service's address given as FINKOK_URL reaches the same services.
    const pasted = createFinkokPac({ url: `${mock.url}/servicios/soap/stamp.wsdl`, username: mock.username, password: mock.password });
    expect(await pasted.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: true });
    expect(last('stamp').path).toBe('/servicios/soap/stamp');
  });

  test('credentials are escaped into the envelope, never concatenated raw; refused credentials (300) are a provider failure', async () => {
    mock.setScenario('ok');
    const odd = pacWith({ password: 'p<a>&"ss' });
    const res = await odd.stamp(sealed(), { tenantId: 'ten_1' });
    expect(last('stamp').body).toContain('<f:password>p&lt;a&gt;&amp;&quot;ss</f:password>');
    expect(last('stamp').fields.password).toBe('p<a>&"ss');
    expect(res).toMatchObject({ ok: false, class: 'provider', message: expect.stringContaining('300') });
  });

  test('307 with the earlier XML is that stamp: one UUID per document', async () => {
    mock.setScenario('307_with_xml');
    const doc = sealed();
    const res = await pac.stamp(doc, { tenantId: 'ten_1' });
    expect(res).toMatchObject({ ok: true });
    expect(mock.ledger.records.filter((r) => r.sello === sello(doc))).toHaveLength(1);
    if (res.ok) expect(res.tfd.uuid).toBe(mock.ledger.find(sello(doc))!.uuid);
  });

  test('307 without the XML: recovered with `stamped` (the same document) at once', async () => {
    mock.setScenario('307_without_xml');
    const doc = sealed();
    const before = mock.requests.filter((r) => r.operation === 'stamped').length;
    const res = await pac.stamp(doc, { tenantId: 'ten_1' });
    expect(res).toMatchObject({ ok: true });
    expect(mock.requests.filter((r) => r.operation === 'stamped').length).toBe(before + 1);
    expect(Buffer.from(last('stamped').fields.xml!, 'base64').toString('utf8')).toBe(doc);
  });

  test('307 naming the UUID while `stamped` fails: recovered with query_pending (by UUID)', async () => {
    mock.setScenario('307_without_xml');
    mock.state.uuidIn307 = true;
    mock.state.stampedFault = true;
    try {
      const doc = sealed();
      const res = await pac.stamp(doc, { tenantId: 'ten_1' });
      const uuid = mock.ledger.find(sello(doc))!.uuid;
      expect(res).toMatchObject({ ok: true, tfd: { uuid } });
      expect(last('query_pending').fields).toMatchObject({ uuid, username: mock.username, password: mock.password });
      mock.state.uuidIn307 = false;
      expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'duplicate', code: '307' });
    } finally {
      mock.state.uuidIn307 = false;
      mock.state.stampedFault = false;
    }
  });

  test('`stamped` not finding a fresh stamp: duplicate (ask Finkok again, never another PAC); asked again later, the same stamp', async () => {
    mock.setScenario('stamped_not_found_for_5s');
    const doc = sealed();
    const first = await pac.stamp(doc, { tenantId: 'ten_1' });
    expect(first).toMatchObject({ ok: false, class: 'duplicate', code: '307' });
    const record = mock.ledger.find(sello(doc))!;
    await until(() => Date.now() >= record.visibleAt, 'Finkok finds the document');
    const again = await pac.stamp(doc, { tenantId: 'ten_1' });
    expect(again).toMatchObject({ ok: true, tfd: { uuid: record.uuid } });
    expect(mock.ledger.records.filter((r) => r.sello === sello(doc))).toHaveLength(1);
  });

  test('timeout after the stamp left: ambiguous; the same document again gets the earlier stamp, never a second UUID', async () => {
    mock.setScenario('timeout_after_stamp');
    const doc = sealed();
    const quick = pacWith({ timeoutMs: 300 });
    expect(await quick.stamp(doc, { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
    await until(() => mock.ledger.find(sello(doc)) !== undefined, 'the mock stamped it'); // its answer never came
    const record = mock.ledger.find(sello(doc))!;
    mock.setScenario('ok');
    expect(await quick.stamp(doc, { tenantId: 'ten_1' })).toMatchObject({ ok: true, tfd: { uuid: record.uuid } });
    expect(mock.ledger.records.filter((r) => r.sello === sello(doc))).toHaveLength(1);
  });

  test('slow then stamped: ambiguous past the timeout, a stamp within it', async () => {
    mock.setScenario('slow_then_stamped');
    expect(await pacWith({ timeoutMs: 200 }).stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
    expect(await pacWith({ timeoutMs: 5000 }).stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: true });
  });

  test('quota exhausted and a refused connection are provider failures; a non-XML 502 is ambiguous; a data error is definitive', async () => {
    mock.setScenario('quota_exhausted');
    expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider', message: expect.stringContaining('timbres') });
    mock.setScenario('non_xml_502');
    expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous', message: expect.stringContaining('HTTP 502') });
    mock.setScenario('reject');
    expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'definitive', code: 'CFDI40108' });
    // A data error that speaks of a Saldo is still a data error, not an account out of stamps.
    mock.state.rejection = { code: 'CRP20219', message: 'El campo ImpSaldoAnt debe ser mayor a cero.' };
    expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'definitive', code: 'CRP20219' });
    mock.state.rejection = { code: 'CFDI40108', message: 'El TipoDeComprobante es I, E o N, el importe no es correcto.' };
    mock.setScenario('down');
    try {
      expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider', message: expect.stringContaining('unreachable') });
    } finally {
      mock.setScenario('ok');
    }
    expect(await pac.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: true });
  });

  test('a certificate refused (TLS ends before the request is written) is a provider failure, like a refused connection', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string);
    cert.serialNumber = '01';
    cert.validity.notBefore = new Date(Date.now() - 86_400_000);
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    cert.setSubject([{ name: 'commonName', value: '127.0.0.1' }]);
    cert.setIssuer([{ name: 'commonName', value: '127.0.0.1' }]);
    const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
    let reached = 0;
    const tls = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      tls: { key: keyPem, cert: forge.pki.certificateToPem(cert) },
      fetch: () => {
        reached++;
        return new Response('no');
      },
    });
    try {
      const selfSigned = createFinkokPac({ url: `https://127.0.0.1:${tls.port}`, username: 'u', password: 'p', timeoutMs: 2000 });
      expect(await selfSigned.stamp(sealed(), { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider' });
      expect(reached).toBe(0);
    } finally {
      tls.stop(true);
    }
  });

  test('an RFC not registered with the account (702) is registered once (registration `add`) and the stamp sent again', async () => {
    mock.setScenario('ok');
    mock.state.requireRegistration = true;
    try {
      const res = await pac.stamp(sealed('AAA010101AAA'), { tenantId: 'ten_1' });
      expect(res).toMatchObject({ ok: true });
      const add = last('add');
      expect(add.path).toBe('/servicios/soap/registration');
      expect(add.fields).toMatchObject({ reseller_username: mock.username, reseller_password: mock.password, taxpayer_id: 'AAA010101AAA', type_user: 'O' });
      mock.state.registrationFails = true;
      const refused = await pac.stamp(sealed('BBB010101BBB'), { tenantId: 'ten_1' });
      expect(refused).toMatchObject({ ok: false, class: 'provider' });
      if (!refused.ok) expect(refused.message).toMatch(/BBB010101BBB is not registered .*register the RFC in Finkok's customer panel/);
    } finally {
      mock.state.requireRegistration = false;
      mock.state.registrationFails = false;
    }
  });

  test('cancellation: cancel_signature with the signed request in base64; without an acuse in the reply, get_receipt fetches it', async () => {
    mock.setScenario('ok');
    const doc = sealed();
    const stamped = await pac.stamp(doc, { tenantId: 'ten_1' });
    if (!stamped.ok) throw new Error('not stamped');
    const uuid = stamped.tfd.uuid;
    const signedXml = `<Cancelacion xmlns="http://cancelacfd.sat.gob.mx" RfcEmisor="EKU9003173C9"><Folios><Folio UUID="${uuid}" Motivo="02"/></Folios></Cancelacion>`;
    const query = { uuid, rfcEmisor: 'EKU9003173C9', rfcReceptor: 'XAXX010101000', total: '116.00', sello: sello(doc) };
    mock.state.cancelMode = 'no_acuse';
    try {
      const res = await pac.cancel({ ...query, motivo: '02', signedXml, requiresAcceptance: false });
      expect(res).toMatchObject({ ok: true, estatusUuid: '201', status: { Estado: 'Cancelado' } });
      if (res.ok) expect(res.acuseXml).toContain(`<UUID>${uuid}</UUID>`);
      expect(Buffer.from(last('cancel_signature').fields.xml!, 'base64').toString('utf8')).toBe(signedXml);
      expect(last('cancel_signature').fields.store_pending).toBe('false');
      expect(last('get_receipt').fields).toMatchObject({ taxpayer_id: 'EKU9003173C9', uuid, type: 'C' });
      mock.state.cancelMode = 'reject';
      expect(await pac.cancel({ ...query, motivo: '02', signedXml, requiresAcceptance: false })).toMatchObject({ ok: false, retryable: false, code: '205' });
      mock.state.cancelMode = '5xx';
      expect(await pac.cancel({ ...query, motivo: '02', signedXml, requiresAcceptance: false })).toMatchObject({ ok: false, retryable: true });
    } finally {
      mock.state.cancelMode = 'ok';
    }
  });
});

describe('the Finkok and SW mocks side by side', () => {
  test('each keeps a record of what it stamped: UUIDs per sealed document across both; their down and timeout scenarios', async () => {
    const sw = createSwMock();
    try {
      const swPac = createSwPac({ url: sw.url, user: sw.user, password: sw.password, timeoutMs: 300 });
      const quick = pacWith({ timeoutMs: 300 });
      const doc = sealed();
      mock.setScenario('timeout_after_stamp');
      sw.setScenario('down');
      expect(await quick.stamp(doc, { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
      expect(await swPac.stamp(doc, { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'provider' });
      mock.setScenario('ok');
      expect(await quick.stamp(doc, { tenantId: 'ten_1' })).toMatchObject({ ok: true });
      sw.setScenario('timeout_after_stamp');
      const other = sealed();
      expect(await swPac.stamp(other, { tenantId: 'ten_1' })).toMatchObject({ ok: false, class: 'ambiguous' });
      sw.setScenario('ok');
      expect(await swPac.stamp(other, { tenantId: 'ten_1' })).toMatchObject({ ok: true });
      const per = uuidsPerDocument(mock.ledger, sw.ledger);
      expect(per.get(sello(doc))).toEqual([`finkok:${mock.ledger.find(sello(doc))!.uuid}`]);
      expect(per.get(sello(other))).toEqual([`sw:${sw.ledger.find(sello(other))!.uuid}`]);
    } finally {
      sw.close();
    }
  });
});

/** The live CSD the issuer uploads (`issuer(…, { csd: ['live'] })`): SAT's test CSDs are refused in live. */
const CSD_CER = csdFiles('EKU9003173C9_live', 'EKU9003173C9').cer;
const invoice = (valor: number) => ingreso({ conceptos: [concepto({ valor_unitario: valor })] });

describe('a live tenant whose PAC is Finkok', () => {
  test('stamps through Finkok (201); its cancellation goes to Finkok, signed with the CSD', async () => {
    mock.setScenario('ok');
    const t = await createTestApp({ livePacs: [pac], stampBudgetMs: 3000, wakeOnEnqueue: false });
    const { live } = await issuer(t, { keys: ['live'], csd: ['live'] });
    const issued = await t.call('POST', '/cfdis', { token: live, body: invoice(101) });
    expect(issued.status).toBe(201);
    const uuid = issued.json.uuid as string;
    expect(mock.ledger.findUuid(uuid)).toBeDefined();
    const cancelled = await t.call('POST', `/cfdis/${uuid}/cancel`, { token: live, body: { motivo: '02' } });
    expect([200, 202]).toContain(cancelled.status);
    const sent = mock.cancellations.at(-1)!;
    expect(sent.uuid).toBe(uuid);
    expect(verifyEnveloped(sent.xml, CSD_CER)).toBe(true);
    expect(sent.xml).toContain(`UUID="${uuid}" Motivo="02"`);
  });

  test('slow: 202, then the queue stamps it with the stamp Finkok made (307 with the earlier XML), one UUID', async () => {
    mock.setScenario('timeout_after_stamp');
    const quick = pacWith({ timeoutMs: 300 });
    const t = await createTestApp({ livePacs: [quick], stampBudgetMs: 1000, wakeOnEnqueue: false });
    const { live } = await issuer(t, { keys: ['live'], csd: ['live'] });
    const before = mock.ledger.records.length;
    const issued = await t.call('POST', '/cfdis', { token: live, body: invoice(102) });
    expect(issued.status).toBe(202);
    await until(() => mock.ledger.records.length === before + 1, 'Finkok stamped it'); // its answer never came
    mock.setScenario('ok');
    t.clock.advance(10 * 60_000);
    await t.app.worker.drain();
    const got = await t.call('GET', `/cfdis/${issued.json.id}`, { token: live });
    expect(got.json.status).toBe('vigente');
    expect(got.json.uuid).toBe(mock.ledger.records.at(-1)!.uuid);
    expect(mock.ledger.records.length).toBe(before + 1);
  });
});
