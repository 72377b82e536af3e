/** The complement of one concepto as it will be written, every value whitespace-collapsed as the XSD reads it. */
export interface HidroYPetroModel {
  tipoPermiso: string;
  numeroPermiso: string;
  claveHYP: string;
  subProductoHYP: string;
}
