import { afterAll, describe, expect, test } from 'bun:test';
import { parseLista69b } from '../../../src/cfdi/received/lista-69b.ts';
import { startSatMock } from '../../sat-mock/sat-mock.ts';

describe('parseLista69b', () => {
  const mock = startSatMock({ now: () => new Date('2025-09-30T12:00:00Z') });
  afterAll(() => mock.stop());

  test("reads SAT's file as the mock serves it: windows-1250, three lines before the data, every situación", async () => {
    mock.control.list69b = [
      { rfc: 'AAA010101AAA', nombre: 'EMPRESA FANTASMA, S.A. DE C.V.', situacion: 'Definitivo' },
      { rfc: 'BBB010101BB1', nombre: 'Compañía "Presunta"', situacion: 'Presunto' },
      { rfc: 'CCC010101CC2', nombre: 'Desvirtuada', situacion: 'Desvirtuado' },
      { rfc: 'DDDD010101DD3', nombre: 'Persona física con sentencia', situacion: 'Sentencia Favorable' },
    ];
    const bytes = new Uint8Array(await (await fetch(mock.list69bUrl)).arrayBuffer());
    const list = parseLista69b(bytes);
    expect(list.date).toBe('2025-09-30');
    expect(list.problems).toEqual([]);
    expect(list.entries).toEqual([
      { rfc: 'AAA010101AAA', situacion: 'definitivo' },
      { rfc: 'BBB010101BB1', situacion: 'presunto' },
      { rfc: 'CCC010101CC2', situacion: 'desvirtuado' },
      { rfc: 'DDDD010101DD3', situacion: 'sentencia_favorable' },
    ]);
  });

  test('windows-1250 accents decode (Situación, Información) and the Spanish date form is read', () => {
    const text = 'INFORMACIÓN ACTUALIZADA AL 15 DE AGOSTO DE 2025\r\nTítulo\r\nNo,RFC,Nombre,Situación del contribuyente\r\n1,EEE010101EE4,X,DEFINITIVO\r\n';
    const bytes = new Uint8Array(Array.from(text, (c) => c.codePointAt(0)!)); // Ó í ó are the same bytes in 1250 and Latin-1
    const list = parseLista69b(bytes);
    expect(list.date).toBe('2025-08-15');
    expect(list.entries).toEqual([{ rfc: 'EEE010101EE4', situacion: 'definitivo' }]);
  });

  test('a UTF-8 upload with a BOM and LF lines, quoted commas and line breaks, reads the same', () => {
    const text =
      '\uFEFFInformación actualizada al 01/02/2026\nListado\nNo,RFC,Nombre,Situación\n1,FFF010101FF5,"Uno, dos\ny tres",Presunto\n\n2,fff010101ff5,"x",Definitivo\n';
    const list = parseLista69b(new TextEncoder().encode(text));
    expect(list.date).toBe('2026-02-01');
    // The same RFC twice: the later line is its state.
    expect(list.entries).toEqual([{ rfc: 'FFF010101FF5', situacion: 'definitivo' }]);
  });

  test('lines that are not a taxpayer are named by line and the rest still loads', () => {
    const text = 'a\nb\nNo,RFC,Nombre,Situación\n1,NOTANRFC,x,Definitivo\n2,GGG010101GG6,x,Cancelado\n3,HHH010101HH7,x,Presunto\n';
    const list = parseLista69b(text);
    expect(list.entries).toEqual([{ rfc: 'HHH010101HH7', situacion: 'presunto' }]);
    expect(list.problems.map((p) => p.line)).toEqual([4, 5]);
    expect(list.problems[0]!.issue).toContain('column 2');
    expect(list.problems[1]!.issue).toContain('column 4');
  });

  test('without a header line the data start after three lines; an empty file is an empty list', () => {
    expect(parseLista69b('x\ny\nz\n1,III010101II8,n,Definitivo').entries).toEqual([{ rfc: 'III010101II8', situacion: 'definitivo' }]);
    expect(parseLista69b('')).toEqual({ entries: [], problems: [] });
  });
});
