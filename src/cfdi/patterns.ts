/** SAT's simple types as patterns, defined once for the engine and the request schemas (tdCFDI.xsd, cfdv40.xsd). */

/** t_RFC: 3 letters (persona moral) or 4 (física), YYMMDD, 2 characters of homoclave and the check digit. */
export const T_RFC = /^[A-Z&Ñ]{3,4}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[A-Z0-9]{2}[0-9A]$/;

/** t_CURP: 18 characters, with the birth date, sex, state and consonants in their places. */
export const T_CURP =
  /^[A-Z][AEIOUX][A-Z]{2}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[MHX]([ABCMTZ]S|[BCJMOT]C|[CNPST]L|[GNQ]T|[GQS]R|C[MH]|[MY]N|[DH]G|NE|VZ|DF|SP)[BCDFGHJ-NP-TV-Z]{3}[0-9A-Z][0-9]$/;

/** A folio fiscal (UUID), any case: SAT writes it upper-case, integrators often send it lower-case. */
export const UUID = /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;

/** Carta Porte's IdCCP: "CCC" and the rest of an RFC 4122 UUID (CartaPorte31.xsd). */
export const ID_CCP = /^C{3}[a-fA-F0-9]{5}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;
