import { attrs, each, type Step } from '../../cadena-steps.ts';

/** ComercioExterior20.xslt: a Domicilio of the Emisor, Receptor or a Destinatario is written by the same template. */
const DOMICILIO = attrs('Calle', 'NumeroExterior NumeroInterior Colonia Localidad Referencia Municipio').concat(attrs('Estado Pais CodigoPostal'));

/**
 * The complement's steps, in ComercioExterior20.xslt's order (Mercancia's DescripcionesEspecificas after its
 * attributes), for cadena.ts's complement templates: the registry of the complement modules will list them.
 */
export const COMERCIO_EXTERIOR_20: Step[] = [
  ...attrs('Version'),
  ...attrs('', 'MotivoTraslado'),
  ...attrs('ClaveDePedimento CertificadoOrigen'),
  ...attrs('', 'NumCertificadoOrigen NumeroExportadorConfiable Incoterm Observaciones'),
  ...attrs('TipoCambioUSD TotalUSD'),
  each('cce20:Emisor', [...attrs('', 'Curp'), each('cce20:Domicilio', DOMICILIO)]),
  each('cce20:Propietario', attrs('NumRegIdTrib ResidenciaFiscal')),
  each('cce20:Receptor', [...attrs('', 'NumRegIdTrib'), each('cce20:Domicilio', DOMICILIO)]),
  each('cce20:Destinatario', [...attrs('', 'NumRegIdTrib Nombre'), each('cce20:Domicilio', DOMICILIO)]),
  each('cce20:Mercancias/cce20:Mercancia', [
    ...attrs('NoIdentificacion'),
    ...attrs('', 'FraccionArancelaria CantidadAduana UnidadAduana ValorUnitarioAduana'),
    ...attrs('ValorDolares'),
    each('cce20:DescripcionesEspecificas', attrs('Marca', 'Modelo SubModelo NumeroSerie')),
  ]),
];
