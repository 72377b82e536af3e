import { el, type XmlNode } from '../xml.ts';

/**
 * A domicilio as Carta Porte 3.1 and Comercio Exterior 2.0 both write it (the same ten attributes in their XSDs): in
 * Mexico its colonia, localidad, municipio and estado are SAT catalog keys; abroad free text. Comercio Exterior
 * requires the calle (its own types narrow this one).
 */
export interface DomicilioInput {
  calle?: string;
  numero_exterior?: string;
  numero_interior?: string;
  colonia?: string;
  localidad?: string;
  referencia?: string;
  municipio?: string;
  estado: string;
  pais: string;
  codigo_postal: string;
}

export interface DomicilioModel {
  calle?: string;
  numeroExterior?: string;
  numeroInterior?: string;
  colonia?: string;
  localidad?: string;
  referencia?: string;
  municipio?: string;
  estado: string;
  pais: string;
  codigoPostal: string;
}

/** A domicilio as written, its checks aside. */
export function domicilioModel<I extends DomicilioInput>(d: I): DomicilioModel & Pick<I, 'calle'> {
  return {
    calle: d.calle,
    numeroExterior: d.numero_exterior,
    numeroInterior: d.numero_interior,
    colonia: d.colonia,
    localidad: d.localidad,
    referencia: d.referencia,
    municipio: d.municipio,
    estado: d.estado,
    pais: d.pais,
    codigoPostal: d.codigo_postal,
  };
}

/** Its node, named in the complement's prefix (`cartaporte31:Domicilio`, `cce20:Domicilio`), attributes in the XSD's order. */
export function domicilioNode(element: string, d: DomicilioModel): XmlNode {
  return el(element, {
    Calle: d.calle,
    NumeroExterior: d.numeroExterior,
    NumeroInterior: d.numeroInterior,
    Colonia: d.colonia,
    Localidad: d.localidad,
    Referencia: d.referencia,
    Municipio: d.municipio,
    Estado: d.estado,
    Pais: d.pais,
    CodigoPostal: d.codigoPostal,
  });
}
