import { catalogEntry } from '../../../../catalogs/index.ts';
import { Dec, sum } from '../../../decimal.ts';
import type { ComercioExteriorInput, MercanciaComercioExteriorInput } from '../input.ts';
import type { ComercioExteriorContext, ConceptoComercioExterior, MercanciaComercioExteriorModel } from '../model.ts';
import { aduanaWindow, importeWindow, inside, type Rates, valorDolares } from './amounts.ts';
import { at, type Checks } from './checks.ts';

/** c_UnidadAduana 99 (SERVICIO): no tariff fraction, and a ValorDolares of 0 is allowed. */
const SERVICIO = '99';
/** The 2.0 fraction of samples (1.1's 98010001): their value must be given away as a discount. */
const MUESTRAS = '9801000100';
const ZERO = Dec.ZERO;
const ONE = Dec.parse('1');

/** The conceptos of each NoIdentificacion, in the order they first appear. */
function groupConceptos(ctx: ComercioExteriorContext, c: Checks): Map<string, { first: number; conceptos: ConceptoComercioExterior[] }> {
  const groups = new Map<string, { first: number; conceptos: ConceptoComercioExterior[] }>();
  ctx.conceptos.forEach((concepto, i) => {
    const id = concepto.noIdentificacion;
    if (id === undefined) {
      c.fail(`conceptos[${i}].no_identificacion`, 'is required on every concepto of an export: it matches the concepto to its mercancía', 'CCE197');
      return;
    }
    const group = groups.get(id);
    if (group) group.conceptos.push(concepto);
    else groups.set(id, { first: i, conceptos: [concepto] });
  });
  return groups;
}

const moneyDecimals = (moneda: string) => Number(catalogEntry('c_Moneda', moneda)?.decimales ?? 2);
const optDec = (v: string | undefined) => (v === undefined ? undefined : Dec.parse(v));

/**
 * The Mercancias: as sent, or one per NoIdentificacion of the conceptos. A mercancía alone with its NoIdentificacion
 * gets its ValorDolares computed from the conceptos' Importe; mercancías that share one send theirs, and their sum
 * is held to the same window.
 */
export function prepareMercancias(
  req: ComercioExteriorInput,
  ctx: ComercioExteriorContext,
  rates: Rates | undefined,
  c: Checks,
): MercanciaComercioExteriorModel[] {
  const groups = groupConceptos(ctx, c);
  const sent: MercanciaComercioExteriorInput[] = req.mercancias ?? [...groups.keys()].map((id) => ({ no_identificacion: id }));
  if (sent.length === 0) c.fail(at('mercancias'), 'at least one mercancía is required', 'CCE199');
  const sharing = new Map<string, number[]>();
  sent.forEach((m, i) => sharing.set(m.no_identificacion, [...(sharing.get(m.no_identificacion) ?? []), i]));
  const decimals = moneyDecimals(ctx.moneda);
  const importeOf = (id: string) => sum(groups.get(id)?.conceptos.map((x) => x.importe) ?? []);

  const seen = new Set<string>();
  const mercancias = sent.map((m, i): MercanciaComercioExteriorModel => {
    const path = `mercancias[${i}]`;
    const group = groups.get(m.no_identificacion);
    if (!group) c.fail(at(`${path}.no_identificacion`), `no concepto has no_identificacion ${m.no_identificacion}`, 'CCE198');
    const key = `${m.no_identificacion}|${m.fraccion_arancelaria ?? ''}`;
    if (seen.has(key))
      c.fail(at(`${path}.fraccion_arancelaria`), `another mercancía has no_identificacion ${m.no_identificacion} and the same fraccion_arancelaria`, 'CCE200');
    seen.add(key);

    const unidad = m.unidad_aduana;
    if (unidad !== undefined) c.catalog(`${path}.unidad_aduana`, 'c_UnidadAduana', unidad);
    if (unidad !== SERVICIO && m.fraccion_arancelaria === undefined)
      c.fail(at(`${path}.fraccion_arancelaria`), 'is required unless unidad_aduana is 99 (a service)', 'CCE206');
    if (unidad === SERVICIO && m.fraccion_arancelaria !== undefined)
      c.fail(at(`${path}.fraccion_arancelaria`), 'must not be sent when unidad_aduana is 99 (a service)', 'CCE207');
    if (m.fraccion_arancelaria !== undefined) {
      const fraccion = c.catalog(`${path}.fraccion_arancelaria`, 'c_FraccionArancelaria', m.fraccion_arancelaria, 'CCE208');
      if (fraccion && unidad !== undefined && unidad !== fraccion.unidad_aduana)
        c.fail(at(`${path}.unidad_aduana`), `must be ${fraccion.unidad_aduana}, the customs unit (UMT) of fracción ${m.fraccion_arancelaria}`, 'CCE209');
    }

    const cantidadAduana = optDec(m.cantidad_aduana);
    const valorUnitarioAduana = optDec(m.valor_unitario_aduana);
    const triplet = [m.cantidad_aduana, m.unidad_aduana, m.valor_unitario_aduana];
    const given = triplet.filter((v) => v !== undefined).length;
    if (given > 0 && given < 3) {
      const missing = (['cantidad_aduana', 'unidad_aduana', 'valor_unitario_aduana'] as const).filter((_, k) => triplet[k] === undefined);
      c.fail(at(`${path}.${missing[0]}`), 'cantidad_aduana, unidad_aduana and valor_unitario_aduana are sent together or not at all', 'CCE213');
    }
    if (valorUnitarioAduana && unidad !== undefined && unidad !== SERVICIO && !(valorUnitarioAduana.cmp(ZERO) > 0))
      c.fail(at(`${path}.valor_unitario_aduana`), 'must be greater than 0 unless unidad_aduana is 99 (a service)', 'CCE215');

    let valor: Dec;
    const alone = sharing.get(m.no_identificacion)!.length === 1;
    if (m.valor_dolares !== undefined) valor = Dec.parse(m.valor_dolares);
    else if (!alone) {
      c.fail(
        at(`${path}.valor_dolares`),
        `is required: ${sharing.get(m.no_identificacion)!.length} mercancías share no_identificacion ${m.no_identificacion}`,
        'CCE205',
      );
      valor = ZERO;
    } else valor = rates && group ? valorDolares(importeOf(m.no_identificacion), rates) : ZERO;

    if (m.valor_dolares !== undefined && rates && group) {
      // CCE217: the concepto's value in dollars, or 0 for a service, or 1 where the rules allow it.
      const zeroForService = valor.isZero() && unidad === SERVICIO;
      if (alone && !zeroForService && valor.cmp(ONE) !== 0) {
        const w = importeWindow(importeOf(m.no_identificacion), decimals, rates);
        if (!inside(valor, w))
          c.fail(
            at(`${path}.valor_dolares`),
            `must be the conceptos' importe in dollars: between ${w.min} and ${w.max} (importe × tipo_cambio ÷ tipo_cambio_usd)`,
            'CCE217',
          );
      } else if (valor.isZero() && unidad !== SERVICIO) c.fail(at(`${path}.valor_dolares`), 'may be 0 only when unidad_aduana is 99 (a service)', 'CCE217');
    }
    if (cantidadAduana && valorUnitarioAduana) {
      const w = aduanaWindow(cantidadAduana, valorUnitarioAduana);
      if (!inside(valor, w))
        c.fail(at(`${path}.valor_dolares`), `${valor} is not cantidad_aduana × valor_unitario_aduana: it must lie between ${w.min} and ${w.max}`, 'CCE216');
    }
    return {
      noIdentificacion: m.no_identificacion,
      fraccionArancelaria: m.fraccion_arancelaria,
      cantidadAduana,
      unidadAduana: unidad,
      valorUnitarioAduana,
      valorDolares: valor,
      descripcionesEspecificas: (m.descripciones_especificas ?? []).map((d) => ({
        marca: d.marca,
        modelo: d.modelo,
        subModelo: d.sub_modelo,
        numeroSerie: d.numero_serie,
      })),
    };
  });

  // Every exported concepto has its mercancía.
  for (const [id, group] of groups)
    if (!sharing.has(id)) c.fail(`conceptos[${group.first}].no_identificacion`, `no mercancía has no_identificacion ${id}`, 'CCE199');

  // The aduana triplet: on every mercancía once on one.
  const complete = sent.map((m) => m.cantidad_aduana !== undefined && m.unidad_aduana !== undefined && m.valor_unitario_aduana !== undefined);
  const none = sent.map((m) => m.cantidad_aduana === undefined && m.unidad_aduana === undefined && m.valor_unitario_aduana === undefined);
  const bare = none.indexOf(true);
  if (complete.includes(true) && bare >= 0)
    c.fail(
      at(`mercancias[${bare}].cantidad_aduana`),
      'cantidad_aduana, unidad_aduana and valor_unitario_aduana are on every mercancía once one has them',
      'CCE214',
    );

  // Mercancías sharing a NoIdentificacion: their ValorDolares (but 0 and 1) add up to the conceptos' importe in dollars.
  if (rates)
    for (const [id, indexes] of sharing) {
      if (indexes.length < 2 || !groups.has(id)) continue;
      const valores = indexes.map((k) => mercancias[k]!.valorDolares).filter((v) => !v.isZero() && v.cmp(ONE) !== 0);
      const w = importeWindow(importeOf(id), decimals, rates);
      if (valores.length > 0 && !inside(sum(valores), w))
        c.fail(
          at(`mercancias[${indexes[0]}].valor_dolares`),
          `the mercancías of no_identificacion ${id} add up to ${sum(valores)} dollars: it must lie between ${w.min} and ${w.max}`,
          'CCE205',
        );
    }

  // Samples (fracción 9801000100) are given away: the conceptos' discount covers their value.
  const muestras = mercancias.map((m, i) => [m, i] as const).filter(([m]) => m.fraccionArancelaria === MUESTRAS);
  // In dollars, both sides converted and rounded alike: a discount equal to the importe covers it exactly.
  if (rates && muestras.length > 0) {
    const ids = new Set(muestras.map(([m]) => m.noIdentificacion));
    const descuento = valorDolares(sum([...ids].flatMap((id) => groups.get(id)?.conceptos.map((x) => x.descuento ?? ZERO) ?? [])), rates);
    const valor = sum(muestras.map(([m]) => m.valorDolares));
    if (descuento.cmp(valor) < 0)
      c.fail(
        at(`mercancias[${muestras[0]![1]}].fraccion_arancelaria`),
        `samples (fracción ${MUESTRAS}) worth ${valor} dollars need at least that discount on their conceptos (${descuento} dollars)`,
        'CCE212',
      );
  }
  return mercancias;
}
