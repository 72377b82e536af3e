import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { closeDatabase, executeSql, withTransaction, type Db } from '../../src/db/index.ts';
import { openPostgres, reportTransactionRetries, type TransactionRetries } from '../../src/db/postgres/client.ts';
import { settings } from '../../src/db/schema/index.ts';
import { createTestApp, issuer, READY, type TestApp } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';

/**
 * Issue 21, step 2: the service on PostgreSQL for real, through HTTP (register, API key, CSD, sandbox invoices,
 * a Pago, a cancellation, /health), and withTransaction's serializable retry. Skips in one line without a server.
 */
const ICV = { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' };
const iva16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
const ingreso = (metodo: 'PUE' | 'PPD') => ({
  tipo: 'I',
  metodo_pago: metodo,
  forma_pago: metodo === 'PUE' ? '03' : '99',
  receptor: ICV,
  conceptos: [{ clave_prod_serv: '84111506', clave_unidad: 'E48', descripcion: 'Servicio', cantidad: 1, valor_unitario: '1000.00', impuestos: iva16 }],
});

describe.skipIf(!POSTGRES)('the service on PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  let db: Db;
  let t: TestApp;

  beforeAll(async () => {
    scratch = await scratchDatabase();
    db = await openPostgres(scratch.url, { max: 4 });
    t = await createTestApp({ db });
  });
  afterAll(async () => {
    await t?.app.worker.stop();
    if (db) await closeDatabase(db);
    await scratch?.drop();
  });

  test('register, API key, CSD, an Ingreso issued synchronously, listed, its XML; a Pago; a cancellation; /health', async () => {
    const a = await issuer(t, READY);
    const issued = await t.call('POST', '/cfdis', { token: a.key, body: ingreso('PUE') });
    expect(issued.status).toBe(201);
    expect(issued.json.uuid).toMatch(/^[0-9A-F-]{36}$/i);
    expect(issued.json.status).toBe('vigente');

    const list = await t.call('GET', '/cfdis', { token: a.key });
    expect(list.status).toBe(200);
    expect(list.json.data.map((c: { uuid: string }) => c.uuid)).toContain(issued.json.uuid);
    const xml = await t.call('GET', `/cfdis/${issued.json.uuid}/xml`, { token: a.key });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain(issued.json.uuid);

    const invoice = await t.call('POST', '/cfdis', { token: a.key, body: ingreso('PPD') });
    expect(invoice.status).toBe(201);
    const fechaPago = issued.json.fecha as string;
    const pago = await t.call('POST', '/cfdis', {
      token: a.key,
      body: {
        tipo: 'P',
        receptor: { ...ICV, uso_cfdi: 'CP01' },
        pagos: [{ fecha_pago: fechaPago, forma_pago: '03', moneda: 'MXN', monto: 400, documentos: [{ cfdi_id: invoice.json.id, imp_pagado: '400.00' }] }],
      },
    });
    expect(pago.status).toBe(201);
    expect(pago.json.uuid).toBeString();

    const cancelled = await t.call('POST', `/cfdis/${issued.json.id}/cancel`, { token: a.key, body: { motivo: '02' } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.cfdi_status).toBe('cancelado');

    const health = await t.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json.info.database.status).toBe('up');
  });

  test('withTransaction: two serializable transactions that conflict both commit, one of them re-run', async () => {
    const key = 'retry_probe';
    await db.insert(settings).values({ key, value: Buffer.from('0') });
    let runs = 0;
    // Each reads the counter, waits for the other to read it too, then writes: one of them must be re-run.
    let arrived = 0;
    const bothRead = Promise.withResolvers<void>();
    const increment = () =>
      withTransaction(db, { isolation: 'serializable', name: 'retry probe' }, async (tx) => {
        runs++;
        const [row] = await tx.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
        if (++arrived === 2) bothRead.resolve();
        // Bounded only against a hang: a loaded machine may take more than half a second to bring the other to its read.
        await Promise.race([bothRead.promise, Bun.sleep(10_000)]);
        await tx
          .update(settings)
          .set({ value: Buffer.from(String(Number(row!.value.toString()) + 1)) })
          .where(eq(settings.key, key));
      });
    const reported: TransactionRetries[] = [];
    reportTransactionRetries((r) => reported.push(r));
    await Promise.all([increment(), increment()]).finally(() => reportTransactionRetries(() => {}));
    const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
    expect(row!.value.toString()).toBe('2');
    expect(runs).toBeGreaterThan(2);
    // The re-runs are told (src/index.ts logs them), by the transaction's name.
    expect(reported.length).toBeGreaterThan(0);
    expect(reported.every((r) => r.transaction === 'retry probe' && r.isolation === 'serializable' && r.committed)).toBe(true);
    expect(reported.reduce((n, r) => n + r.retries, 0)).toBe(runs - 2);
  });

  test('withTransaction read committed: writers of one row wait for its lock and each reads the value committed before it, never re-run', async () => {
    const key = 'queue_probe';
    await db.insert(settings).values({ key, value: Buffer.from('0') });
    const wide = await openPostgres(scratch.url, { max: 8 });
    const reported: TransactionRetries[] = [];
    reportTransactionRetries((r) => reported.push(r));
    let runs = 0;
    // UPDATE … RETURNING first, as allocateFolio does, then work a while holding the row.
    const take = () =>
      withTransaction(wide, { isolation: 'read committed', name: 'queue probe' }, async (tx) => {
        runs++;
        const [row] = await tx
          .update(settings)
          .set({ value: sql`convert_to((convert_from(${settings.value}, 'UTF8')::int + 1)::text, 'UTF8')` })
          .where(eq(settings.key, key))
          .returning({ value: settings.value });
        await Bun.sleep(20);
        return Number(row!.value.toString());
      });
    const taken = await Promise.all(Array.from({ length: 8 }, take)).finally(() => {
      reportTransactionRetries(() => {});
      return closeDatabase(wide);
    });
    expect(taken.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(runs).toBe(8);
    expect(reported).toEqual([]);
  });

  test('withTransaction: a part that needs serializable refuses to run inside a read committed transaction', async () => {
    const inner = withTransaction(db, { isolation: 'read committed', name: 'outer' }, (tx) =>
      withTransaction(tx, { isolation: 'serializable', name: 'inner' }, async () => 'ran'),
    );
    await expect(inner).rejects.toThrow(/inner needs a serializable transaction but runs inside outer/);
  });

  test("withTransaction: twenty transactions racing for one counter all commit (a hot row, like a series' folio)", async () => {
    const key = 'hot_counter';
    await db.insert(settings).values({ key, value: Buffer.from('0') });
    // As many connections as racers (three instances' pools, together): every one of them overlaps every other.
    const wide = await openPostgres(scratch.url, { max: 20 });
    // Each reads, works a while (sealing an invoice), then writes: only one of the overlapping ones commits per round.
    const increment = () =>
      withTransaction(wide, { isolation: 'serializable' }, async (tx) => {
        const [row] = await tx.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
        await Bun.sleep(30);
        await tx
          .update(settings)
          .set({ value: Buffer.from(String(Number(row!.value.toString()) + 1)) })
          .where(eq(settings.key, key));
      });
    await Promise.all(Array.from({ length: 20 }, increment)).finally(() => closeDatabase(wide));
    const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
    expect(row!.value.toString()).toBe('20');
  }, 30_000);

  test('count(*) and bigint columns read as numbers', async () => {
    const [row] = await executeSql(db, sql`select count(*) as n from ${settings}`);
    expect(typeof row!.n).toBe('number');
    expect(await db.$count(settings)).toBeNumber();
  });

  test('db used inside a transaction throws instead of escaping it', async () => {
    await expect(withTransaction(db, { isolation: 'serializable' }, async () => db.select().from(settings))).rejects.toThrow(/pass the transaction/);
  });
});
