import type { Actor } from '../../lib/backend.ts';
import { readZip } from '../../lib/zip.ts';
import { invalidInput, ServiceError } from '../../lib/service-error.ts';
import { type IntakeOutcome, intakeReceived, type ReceivedDeps } from './intake.ts';

/**
 * Documents one POST /received-cfdis takes, ZIP entries counted one by one. Validation costs about 100 ms a document
 * (xmllint-wasm compiles SAT's schemas on every call), so this keeps a request within a few seconds; more go in
 * several requests (or arrive through Descarga Masiva, which calls intakeReceived without this cap).
 */
export const MAX_FILES_PER_REQUEST = 25;
/** One document's size: the largest CFDI (a Carta Porte with hundreds of mercancías) is well under it. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** What a ZIP may unpack to, as its headers declare (checked before anything is inflated). */
export const MAX_ZIP_BYTES = 32 * 1024 * 1024;

export interface UploadedPart {
  /** The file name (multipart), or a label for a whole body. */
  name: string;
  bytes: Uint8Array;
}

const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && (b[3] === 4 || b[3] === 6);

/** The documents of an upload: each part as it is, or each entry of a part that is a ZIP (`package.zip/entry.xml`). */
function documentsOf(parts: UploadedPart[]): UploadedPart[] {
  if (parts.length === 0) throw invalidInput('No file', [{ field: 'body', issue: 'send at least one CFDI XML or a ZIP of them' }]);
  const docs: UploadedPart[] = [];
  for (const part of parts) {
    if (isZip(part.bytes)) {
      const entries = readZip(part.bytes, { maxEntries: MAX_FILES_PER_REQUEST * 2, maxTotalBytes: MAX_ZIP_BYTES }, part.name);
      docs.push(...entries.map((e) => ({ name: `${part.name}/${e.name}`, bytes: e.bytes })));
    } else docs.push(part);
    if (docs.length > MAX_FILES_PER_REQUEST) {
      throw new ServiceError('too_large', 'Too many documents', [
        { field: 'body', issue: `at most ${MAX_FILES_PER_REQUEST} documents per request (ZIP entries counted one by one); send the rest in another request` },
      ]);
    }
  }
  const big = docs.find((d) => d.bytes.byteLength > MAX_FILE_BYTES);
  if (big) throw new ServiceError('too_large', 'Document too large', [{ field: big.name, issue: `is over ${MAX_FILE_BYTES} bytes` }]);
  return docs;
}

/** POST /received-cfdis: validates and stores each document of the upload (intakeReceived), one outcome per document. */
export async function uploadReceived(deps: ReceivedDeps, actor: Actor, parts: UploadedPart[]): Promise<{ data: IntakeOutcome[] }> {
  const docs = documentsOf(parts);
  return { data: await intakeReceived(deps, { tenantId: actor.tenantId, environment: actor.environment }, docs) };
}
