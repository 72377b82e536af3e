import { child, childrenNamed, type XmlNode } from '../../xml.ts';
import { amountIn, described, groupDigits, none } from '../../pdf/format.ts';
import type { PdfColumn, PdfLayout } from '../../pdf/layout.ts';

const MERCANCIA_COLUMNS: PdfColumn[] = [
  { title: 'No. de identificación', width: 90 },
  { title: 'Fracción arancelaria', width: 170, notes: true },
  { title: 'Cantidad aduana', width: 60, align: 'right' },
  { title: 'Unidad aduana', width: 90 },
  { title: 'Valor unitario aduana', width: 60, align: 'right' },
  { title: 'Valor en dólares', width: 70, align: 'right' },
];

/** A Domicilio on one line, as SAT's keys are written (the Carta Porte section spells the same keys out). */
function domicilioText(d: Record<string, string> | undefined): string {
  if (!d) return '';
  const street = [d.Calle, d.NumeroExterior, d.NumeroInterior && `int. ${d.NumeroInterior}`].filter(Boolean).join(' ');
  return [
    street,
    d.Colonia && `Col. ${d.Colonia}`,
    d.Localidad && `Loc. ${d.Localidad}`,
    d.Municipio && `Mun. ${d.Municipio}`,
    d.Estado,
    d.Pais,
    d.CodigoPostal && `C.P. ${d.CodigoPostal}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The Comercio Exterior section: the header's keys with their names, the parties' addresses, the mercancías and TotalUSD. */
export function renderComercioExterior(layout: PdfLayout, cce: XmlNode): void {
  const c = cce.attrs;
  layout.section('COMPLEMENTO DE COMERCIO EXTERIOR');
  layout.fields(
    [
      ['Versión', c.Version],
      ['Motivo de traslado', described('c_MotivoTraslado', c.MotivoTraslado)],
      ['Clave de pedimento', described('c_ClavePedimento', c.ClaveDePedimento)],
      ['Certificado de origen', c.CertificadoOrigen === '1' ? `Sí ${c.NumCertificadoOrigen ?? ''}`.trim() : 'No'],
      ['Exportador confiable', c.NumeroExportadorConfiable],
      ['INCOTERM', described('c_INCOTERM', c.Incoterm)],
      ['Tipo de cambio USD', c.TipoCambioUSD],
      ['Total USD', amountIn('USD', c.TotalUSD)],
      ['Observaciones', c.Observaciones],
    ],
    3,
  );
  const emisor = child(cce, 'cce20:Emisor');
  const receptor = child(cce, 'cce20:Receptor');
  layout.fields(
    [
      ['CURP del emisor', emisor?.attrs.Curp],
      ['Domicilio del emisor', domicilioText(child(emisor ?? none, 'cce20:Domicilio')?.attrs)],
      ['Domicilio del receptor', domicilioText(child(receptor ?? none, 'cce20:Domicilio')?.attrs)],
      ...childrenNamed(cce, 'cce20:Propietario').map((p): [string, string] => [
        'Propietario',
        `${p.attrs.NumRegIdTrib} (${described('c_Pais', p.attrs.ResidenciaFiscal)})`,
      ]),
      ...childrenNamed(cce, 'cce20:Destinatario').map((d): [string, string] => [
        'Destinatario',
        [d.attrs.Nombre, d.attrs.NumRegIdTrib, ...childrenNamed(d, 'cce20:Domicilio').map((x) => domicilioText(x.attrs))].filter(Boolean).join(' · '),
      ]),
    ],
    1,
  );
  layout.heading('Mercancías');
  const row = layout.table(MERCANCIA_COLUMNS);
  for (const mercancia of childrenNamed(child(cce, 'cce20:Mercancias') ?? none, 'cce20:Mercancia')) {
    const m = mercancia.attrs;
    row(
      [
        m.NoIdentificacion ?? '',
        described('c_FraccionArancelaria', m.FraccionArancelaria),
        groupDigits(m.CantidadAduana),
        described('c_UnidadAduana', m.UnidadAduana),
        groupDigits(m.ValorUnitarioAduana),
        groupDigits(m.ValorDolares),
      ],
      childrenNamed(mercancia, 'cce20:DescripcionesEspecificas').map(({ attrs: d }) =>
        [d.Marca, d.Modelo, d.SubModelo, d.NumeroSerie && `serie ${d.NumeroSerie}`].filter(Boolean).join(' · '),
      ),
    );
  }
  layout.fields([['Total USD', amountIn('USD', c.TotalUSD)]], 3);
}
