import { catalogEntry, type CatalogName } from '../../../catalogs/index.ts';
import { cartaPorteVerificationUrl } from '../../qr.ts';
import { child, childrenNamed, type XmlNode } from '../../xml.ts';
import { amountIn, described, groupDigits, none, printedDate } from '../../pdf/format.ts';
import type { PdfColumn, PdfLayout } from '../../pdf/layout.ts';

/** The children named `name` of the child named `parent` (none when the parent is absent). */
const nested = (node: XmlNode, parent: string, name: string) => childrenNamed(child(node, parent) ?? none, name);

/** "label: value" for each value present, for a row's notes. */
const labelled = (pairs: [string, string | undefined][]) => pairs.filter(([, v]) => v).map(([label, v]) => `${label}: ${v}`);

/** A place key of a composite catalog (c_Estado by país, c_Municipio and c_Localidad by estado): "001 - Aguascalientes"; the bare key elsewhere. */
function place(catalog: CatalogName, scope: string | undefined, key: string | undefined): string {
  if (!key) return '';
  const text = catalogEntry(catalog, `${scope ?? ''}|${key}`)?.descripcion;
  return text ? `${key} - ${text}` : key;
}

/** A Domicilio on one line, catalog keys with their names: street, colonia, localidad, municipio, estado, país, C.P. */
function domicilioText(d: Record<string, string>): string {
  const street = [d.Calle, d.NumeroExterior, d.NumeroInterior && `int. ${d.NumeroInterior}`].filter(Boolean).join(' ');
  return [
    street,
    d.Colonia && `Col. ${d.Colonia}`,
    d.Localidad && `Loc. ${place('c_Localidad', d.Estado, d.Localidad)}`,
    d.Municipio && `Mun. ${place('c_Municipio', d.Estado, d.Municipio)}`,
    place('c_Estado', d.Pais, d.Estado),
    described('c_Pais', d.Pais),
    d.CodigoPostal && `C.P. ${d.CodigoPostal}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The Origen's FechaHoraSalidaLlegada: the first Ubicacion of that type. */
const origen = (cartaPorte: XmlNode) =>
  nested(cartaPorte, 'cartaporte31:Ubicaciones', 'cartaporte31:Ubicacion').find((u) => u.attrs.TipoUbicacion === 'Origen')?.attrs;

const UBICACION_COLUMNS: PdfColumn[] = [
  { title: 'Tipo e ID', width: 62 },
  { title: 'Remitente o destinatario', width: 140 },
  { title: 'Fecha y hora de salida o llegada', width: 60 },
  { title: 'Domicilio', width: 226, notes: true },
  { title: 'Distancia recorrida (km)', width: 52, align: 'right' },
];

const MERCANCIA_COLUMNS: PdfColumn[] = [
  { title: 'Bienes transportados', width: 104 },
  { title: 'Descripción', width: 186, size: 7.5, notes: true },
  { title: 'Cantidad', width: 44, align: 'right' },
  { title: 'Unidad', width: 56 },
  { title: 'Peso (kg)', width: 52, align: 'right' },
  { title: 'Valor', width: 62, align: 'right' },
  { title: 'Material peligroso', width: 36 },
];

const FIGURA_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de figura', width: 88 },
  { title: 'RFC', width: 68 },
  { title: 'Nombre', width: 170, notes: true },
  { title: 'Licencia', width: 70 },
  { title: 'Partes del transporte', width: 144 },
];

const CONTENEDOR_MARITIMO_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de contenedor', width: 150, notes: true },
  { title: 'Matrícula', width: 80 },
  { title: 'Precinto', width: 70 },
  { title: 'Carta Porte relacionada (IdCCP)', width: 140 },
  { title: 'Placa', width: 40 },
  { title: 'Certificación', width: 60 },
];

const CARRO_COLUMNS: PdfColumn[] = [
  { title: 'Tipo de carro', width: 150, notes: true },
  { title: 'Matrícula', width: 110 },
  { title: 'Guía', width: 100 },
  { title: 'Toneladas netas', width: 180, align: 'right' },
];

function ubicaciones(layout: PdfLayout, cartaPorte: XmlNode): void {
  layout.heading('Ubicaciones');
  const row = layout.table(UBICACION_COLUMNS);
  for (const ubicacion of nested(cartaPorte, 'cartaporte31:Ubicaciones', 'cartaporte31:Ubicacion')) {
    const u = ubicacion.attrs;
    const domicilio = child(ubicacion, 'cartaporte31:Domicilio')?.attrs;
    row(
      [
        [u.TipoUbicacion, u.IDUbicacion].filter(Boolean).join(' '),
        [u.RFCRemitenteDestinatario, u.NombreRemitenteDestinatario].filter(Boolean).join(' '),
        printedDate(u.FechaHoraSalidaLlegada),
        domicilio ? domicilioText(domicilio) : '',
        groupDigits(u.DistanciaRecorrida),
      ],
      labelled([
        ['Registro de identidad tributaria', u.NumRegIdTrib],
        ['Residencia fiscal', u.ResidenciaFiscal && described('c_Pais', u.ResidenciaFiscal)],
        ['Estación', [described('c_Estaciones', u.NumEstacion), u.NombreEstacion].filter(Boolean).join(' · ')],
        ['Tipo de estación', described('c_TipoEstacion', u.TipoEstacion)],
        ['Navegación', u.NavegacionTrafico],
        ['Referencia', domicilio?.Referencia],
      ]),
    );
  }
}

/** A Mercancia's notes: hazardous material and packaging, customs documents, guides, quantities per movement, the rest. */
function mercanciaNotes(mercancia: XmlNode): string[] {
  const m = mercancia.attrs;
  const detalle = child(mercancia, 'cartaporte31:DetalleMercancia')?.attrs;
  return [
    ...labelled([
      ['Clave STCC', m.ClaveSTCC],
      ['Material peligroso', m.CveMaterialPeligroso && described('c_MaterialPeligroso', m.CveMaterialPeligroso)],
      ['Embalaje', [described('c_TipoEmbalaje', m.Embalaje), m.DescripEmbalaje].filter(Boolean).join(' · ')],
      ['Dimensiones', m.Dimensiones],
      ['Fracción arancelaria', described('c_FraccionArancelaria', m.FraccionArancelaria)],
      ['UUID del CFDI de comercio exterior', m.UUIDComercioExt],
      ['Tipo de materia', [described('c_TipoMateria', m.TipoMateria), m.DescripcionMateria].filter(Boolean).join(' · ')],
      ['Sector COFEPRIS', described('c_SectorCOFEPRIS', m.SectorCOFEPRIS)],
      ['Ingrediente activo', m.NombreIngredienteActivo],
      ['Nombre químico', m.NomQuimico],
      ['Denominación genérica', m.DenominacionGenericaProd],
      ['Denominación distintiva', m.DenominacionDistintivaProd],
      ['Fabricante', m.Fabricante],
      ['Caducidad', printedDate(m.FechaCaducidad)],
      ['Lote', m.LoteMedicamento],
      ['Forma farmacéutica', described('c_FormaFarmaceutica', m.FormaFarmaceutica)],
      ['Condiciones especiales de transporte', described('c_CondicionesEspeciales', m.CondicionesEspTransp)],
      ['Registro sanitario o folio de autorización', m.RegistroSanitarioFolioAutorizacion],
      ['Permiso de importación', m.PermisoImportacion],
      ['Folio de importación VUCEM', m.FolioImpoVUCEM],
      ['Número CAS', m.NumCAS],
      ['Empresa importadora', m.RazonSocialEmpImp],
      ['Registro sanitario de plaguicidas COFEPRIS', m.NumRegSanPlagCOFEPRIS],
      ['Datos del fabricante', m.DatosFabricante],
      ['Datos del formulador', m.DatosFormulador],
      ['Datos del maquilador', m.DatosMaquilador],
      ['Uso autorizado', m.UsoAutorizado],
    ]),
    ...childrenNamed(mercancia, 'cartaporte31:DocumentacionAduanera').map(({ attrs: d }) =>
      [
        `Documento aduanero: ${described('c_DocumentoAduanero', d.TipoDocumento)}`,
        d.NumPedimento ?? d.IdentDocAduanero,
        d.RFCImpo && `RFC del importador ${d.RFCImpo}`,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    ...childrenNamed(mercancia, 'cartaporte31:GuiasIdentificacion').map(
      ({ attrs: g }) => `Guía ${g.NumeroGuiaIdentificacion}: ${g.DescripGuiaIdentificacion} · ${groupDigits(g.PesoGuiaIdentificacion)} kg`,
    ),
    ...childrenNamed(mercancia, 'cartaporte31:CantidadTransporta').map(
      ({ attrs: c }) =>
        `Transporta ${c.Cantidad} de ${c.IDOrigen} a ${c.IDDestino}${c.CvesTransporte ? ` (${described('c_CveTransporte', c.CvesTransporte)})` : ''}`,
    ),
    ...(detalle
      ? [
          `Detalle: peso bruto ${groupDigits(detalle.PesoBruto)}, neto ${groupDigits(detalle.PesoNeto)}, tara ${groupDigits(detalle.PesoTara)} (${described('c_ClaveUnidadPeso', detalle.UnidadPesoMerc, 'nombre')})${detalle.NumPiezas ? ` · ${detalle.NumPiezas} piezas` : ''}`,
        ]
      : []),
  ];
}

function mercancias(layout: PdfLayout, cartaPorte: XmlNode): XmlNode {
  const node = child(cartaPorte, 'cartaporte31:Mercancias') ?? none;
  layout.heading('Mercancías');
  const row = layout.table(MERCANCIA_COLUMNS);
  for (const mercancia of childrenNamed(node, 'cartaporte31:Mercancia')) {
    const m = mercancia.attrs;
    row(
      [
        described('c_ClaveProdServCP', m.BienesTransp),
        m.Descripcion ?? '',
        m.Cantidad ?? '',
        m.Unidad ? `${m.ClaveUnidad} ${m.Unidad}` : described('c_ClaveUnidad', m.ClaveUnidad, 'nombre'),
        groupDigits(m.PesoEnKg),
        m.ValorMercancia ? amountIn(m.Moneda ?? 'MXN', m.ValorMercancia) : '',
        m.MaterialPeligroso ?? '',
      ],
      mercanciaNotes(mercancia),
    );
  }
  const t = node.attrs;
  layout.fields(
    [
      ['Peso bruto total', groupDigits(t.PesoBrutoTotal)],
      ['Unidad de peso', described('c_ClaveUnidadPeso', t.UnidadPeso, 'nombre')],
      ['Peso neto total', groupDigits(t.PesoNetoTotal)],
      ['Número total de mercancías', t.NumTotalMercancias],
      // CargoPorTasacion and PrimaSeguro name no currency: pesos, as a ValorMercancia without Moneda.
      ['Cargo por tasación', amountIn('MXN', t.CargoPorTasacion)],
      ['Logística inversa, recolección o devolución', t.LogisticaInversaRecoleccionDevolucion],
    ],
    3,
  );
  return node;
}

function autotransporte(layout: PdfLayout, node: XmlNode): void {
  const a = node.attrs;
  const vehiculo = child(node, 'cartaporte31:IdentificacionVehicular')?.attrs ?? {};
  const seguros = child(node, 'cartaporte31:Seguros')?.attrs ?? {};
  layout.heading('Autotransporte');
  layout.fields(
    [
      ['Permiso SCT', described('c_TipoPermiso', a.PermSCT)],
      ['Número de permiso SCT', a.NumPermisoSCT],
      ['Configuración vehicular', described('c_ConfigAutotransporte', vehiculo.ConfigVehicular)],
      ['Placa', vehiculo.PlacaVM],
      ['Año del modelo', vehiculo.AnioModeloVM],
      ['Peso bruto vehicular (t)', groupDigits(vehiculo.PesoBrutoVehicular)],
      ['Aseguradora de responsabilidad civil', seguros.AseguraRespCivil],
      ['Póliza de responsabilidad civil', seguros.PolizaRespCivil],
      ['Aseguradora de daños al medio ambiente', seguros.AseguraMedAmbiente],
      ['Póliza de daños al medio ambiente', seguros.PolizaMedAmbiente],
      ['Aseguradora de la carga', seguros.AseguraCarga],
      ['Póliza de la carga', seguros.PolizaCarga],
      ['Prima del seguro', amountIn('MXN', seguros.PrimaSeguro)],
    ],
    3,
  );
  const remolques = nested(node, 'cartaporte31:Remolques', 'cartaporte31:Remolque');
  layout.fields(
    remolques.map(({ attrs: r }, i): [string, string] => [
      remolques.length > 1 ? `Remolque ${i + 1}` : 'Remolque',
      `${described('c_SubTipoRem', r.SubTipoRem)} · placa ${r.Placa ?? ''}`,
    ]),
    2,
  );
}

function transporteMaritimo(layout: PdfLayout, node: XmlNode): void {
  const t = node.attrs;
  layout.heading('Transporte marítimo');
  layout.fields(
    [
      ['Tipo de embarcación', described('c_ConfigMaritima', t.TipoEmbarcacion)],
      ['Matrícula', t.Matricula],
      ['Número OMI', t.NumeroOMI],
      ['Nombre de la embarcación', t.NombreEmbarc],
      ['Nacionalidad', described('c_Pais', t.NacionalidadEmbarc)],
      ['Año de la embarcación', t.AnioEmbarcacion],
      ['Unidades de arqueo bruto', groupDigits(t.UnidadesDeArqBruto)],
      ['Tipo de carga', described('c_ClaveTipoCarga', t.TipoCarga)],
      [
        'Eslora, manga, calado, puntal (m)',
        [t.Eslora, t.Manga, t.Calado, t.Puntal].some(Boolean) ? [t.Eslora, t.Manga, t.Calado, t.Puntal].map((v) => v ?? '—').join(' · ') : undefined,
      ],
      ['Línea naviera', t.LineaNaviera],
      ['Agente naviero', t.NombreAgenteNaviero],
      ['Autorización del agente naviero', t.NumAutorizacionNaviero],
      ['Número de viaje', t.NumViaje],
      ['Conocimiento de embarque', t.NumConocEmbarc],
      ['Permiso temporal de navegación', t.PermisoTempNavegacion],
      ['Permiso SCT', described('c_TipoPermiso', t.PermSCT)],
      ['Número de permiso SCT', t.NumPermisoSCT],
      ['Aseguradora', t.NombreAseg],
      ['Póliza', t.NumPolizaSeguro],
    ],
    3,
  );
  const contenedores = childrenNamed(node, 'cartaporte31:Contenedor');
  if (!contenedores.length) return;
  layout.heading('Contenedores');
  const row = layout.table(CONTENEDOR_MARITIMO_COLUMNS);
  for (const contenedor of contenedores) {
    const c = contenedor.attrs;
    row(
      [
        described('c_ContenedorMaritimo', c.TipoContenedor),
        c.MatriculaContenedor ?? '',
        c.NumPrecinto ?? '',
        c.IdCCPRelacionado ?? '',
        c.PlacaVMCCP ?? '',
        printedDate(c.FechaCertificacionCCP),
      ],
      nested(contenedor, 'cartaporte31:RemolquesCCP', 'cartaporte31:RemolqueCCP').map(
        ({ attrs: r }) => `Remolque: ${described('c_SubTipoRem', r.SubTipoRemCCP)} · placa ${r.PlacaCCP ?? ''}`,
      ),
    );
  }
}

function transporteAereo(layout: PdfLayout, node: XmlNode): void {
  const t = node.attrs;
  layout.heading('Transporte aéreo');
  layout.fields(
    [
      ['Permiso SCT', described('c_TipoPermiso', t.PermSCT)],
      ['Número de permiso SCT', t.NumPermisoSCT],
      ['Matrícula de la aeronave', t.MatriculaAeronave],
      ['Número de guía', t.NumeroGuia],
      ['Transportista', described('c_CodigoTransporteAereo', t.CodigoTransportista)],
      ['Lugar del contrato', t.LugarContrato],
      ['Aseguradora', t.NombreAseg],
      ['Póliza', t.NumPolizaSeguro],
      ['RFC del embarcador', t.RFCEmbarcador],
      ['Nombre del embarcador', t.NombreEmbarcador],
      ['Registro de identidad tributaria del embarcador', t.NumRegIdTribEmbarc],
      ['Residencia fiscal del embarcador', t.ResidenciaFiscalEmbarc && described('c_Pais', t.ResidenciaFiscalEmbarc)],
    ],
    3,
  );
}

function transporteFerroviario(layout: PdfLayout, node: XmlNode): void {
  const t = node.attrs;
  layout.heading('Transporte ferroviario');
  layout.fields(
    [
      ['Tipo de servicio', described('c_TipoDeServicio', t.TipoDeServicio)],
      ['Tipo de tráfico', described('c_TipoDeTrafico', t.TipoDeTrafico)],
      ['Aseguradora', t.NombreAseg],
      ['Póliza', t.NumPolizaSeguro],
    ],
    3,
  );
  layout.fields(
    childrenNamed(node, 'cartaporte31:DerechosDePaso').map(({ attrs: d }): [string, string] => [
      'Derecho de paso',
      `${described('c_DerechosDePaso', d.TipoDerechoDePaso)} · ${groupDigits(d.KilometrajePagado)} km pagados`,
    ]),
    2,
  );
  layout.heading('Carros');
  const row = layout.table(CARRO_COLUMNS);
  for (const carro of childrenNamed(node, 'cartaporte31:Carro')) {
    const c = carro.attrs;
    row(
      [described('c_TipoCarro', c.TipoCarro), c.MatriculaCarro ?? '', c.GuiaCarro ?? '', groupDigits(c.ToneladasNetasCarro)],
      childrenNamed(carro, 'cartaporte31:Contenedor').map(
        ({ attrs: k }) =>
          `Contenedor ${described('c_Contenedor', k.TipoContenedor, 'nombre')}: vacío ${groupDigits(k.PesoContenedorVacio)} t, mercancía ${groupDigits(k.PesoNetoMercancia)} t`,
      ),
    );
  }
}

function figuras(layout: PdfLayout, cartaPorte: XmlNode): void {
  const all = nested(cartaPorte, 'cartaporte31:FiguraTransporte', 'cartaporte31:TiposFigura');
  if (!all.length) return;
  layout.heading('Figuras del transporte');
  const row = layout.table(FIGURA_COLUMNS);
  for (const figura of all) {
    const f = figura.attrs;
    const domicilio = child(figura, 'cartaporte31:Domicilio')?.attrs;
    row(
      [
        described('c_FiguraTransporte', f.TipoFigura),
        f.RFCFigura ?? '',
        f.NombreFigura ?? '',
        f.NumLicencia ?? '',
        childrenNamed(figura, 'cartaporte31:PartesTransporte')
          .map((p) => described('c_ParteTransporte', p.attrs.ParteTransporte))
          .join(', '),
      ],
      labelled([
        ['Registro de identidad tributaria', f.NumRegIdTribFigura],
        ['Residencia fiscal', f.ResidenciaFiscalFigura && described('c_Pais', f.ResidenciaFiscalFigura)],
        ['Domicilio', domicilio && domicilioText(domicilio)],
      ]),
    );
  }
}

/**
 * Complemento Carta Porte 3.1: the movement (IdCCP, international transport, distance), the route, the goods with
 * their totals, the vehicle of the transport mode and the figures; its own QR goes beside the CFDI's (`cartaPorteQr`).
 */
export function renderCartaPorte(layout: PdfLayout, cartaPorte: XmlNode): void {
  const c = cartaPorte.attrs;
  layout.section('COMPLEMENTO CARTA PORTE');
  layout.fields(
    [
      ['IdCCP', c.IdCCP],
      ['Versión', c.Version],
      ['Transporte internacional', c.TranspInternac],
      ['Entrada o salida de la mercancía', c.EntradaSalidaMerc],
      ['País de origen o destino', c.PaisOrigenDestino && described('c_Pais', c.PaisOrigenDestino)],
      ['Vía de entrada o salida', described('c_CveTransporte', c.ViaEntradaSalida)],
      [
        'Regímenes aduaneros',
        nested(cartaPorte, 'cartaporte31:RegimenesAduaneros', 'cartaporte31:RegimenAduaneroCCP')
          .map((r) => described('c_RegimenAduanero', r.attrs.RegimenAduanero))
          .join(', '),
      ],
      ['Distancia total recorrida (km)', groupDigits(c.TotalDistRec)],
      ['Registro ISTMO', c.RegistroISTMO],
      ['Polo de origen', described('c_RegistroISTMO', c.UbicacionPoloOrigen)],
      ['Polo de destino', described('c_RegistroISTMO', c.UbicacionPoloDestino)],
    ],
    3,
  );
  ubicaciones(layout, cartaPorte);
  const node = mercancias(layout, cartaPorte);
  const modes: [string, (layout: PdfLayout, node: XmlNode) => void][] = [
    ['cartaporte31:Autotransporte', autotransporte],
    ['cartaporte31:TransporteMaritimo', transporteMaritimo],
    ['cartaporte31:TransporteAereo', transporteAereo],
    ['cartaporte31:TransporteFerroviario', transporteFerroviario],
  ];
  for (const [element, render] of modes) {
    const mode = child(node, element);
    if (mode) render(layout, mode);
  }
  figuras(layout, cartaPorte);
}

/** The complement's own QR (docs/sat-rules.md §4), printed under the CFDI's with what it encodes. */
export function cartaPorteQr(cartaPorte: XmlNode, fechaTimbrado: string): { title: string; url: string; rows: [string, string][] } {
  const idCCP = cartaPorte.attrs.IdCCP ?? '';
  const fechaOrig = origen(cartaPorte)?.FechaHoraSalidaLlegada ?? '';
  return {
    title: 'Código QR del complemento Carta Porte',
    url: cartaPorteVerificationUrl({ idCCP, fechaOrig, fechaTimb: fechaTimbrado }),
    rows: [
      ['IdCCP', idCCP],
      ['Fecha y hora de salida del origen', printedDate(fechaOrig)],
      ['Fecha y hora de certificación', printedDate(fechaTimbrado)],
    ],
  };
}
