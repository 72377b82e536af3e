import { join } from 'node:path';

/** Where the xmllint thread's code is: beside this file from source, at its entry point's place in the executable. */
const WORKER_ENTRY = Bun.isStandaloneExecutable
  ? join(import.meta.dir, 'cfdi', 'received', 'xmllint-worker.js')
  : new URL('./xmllint-worker.ts', import.meta.url).href;

/** WebAssembly pages of 64 KiB: xmllint starts with 16 MiB. */
const INITIAL_PAGES = 256;

export interface SchemaValidation {
  /** Schema-valid (exit 0); false for a validation failure (exit 3 or 4). */
  valid: boolean;
  /** xmllint's messages, one per line, without its "validates" / "fails to validate" summary. */
  errors: string[];
}

/**
 * Validates `xml` against the schema file `schema` (among `files`, which the schema may import by name) with xmllint,
 * in a thread of its own that ends with the call (libxml2 compiles the schemas each time). `--nonet`: a schema
 * location on the network is never fetched. A document xmllint cannot parse (exit 1) is answered as invalid with its
 * message; any other exit code is a failure of the tool and throws.
 */
export async function validateWithXmllint(
  xml: { fileName: string; contents: string },
  schema: { fileName: string; contents: string },
  files: { fileName: string; contents: string }[],
  maxMemoryPages: number,
): Promise<SchemaValidation> {
  const worker = new Worker(WORKER_ENTRY);
  try {
    const answer = await new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => reject(new Error(`xmllint thread failed: ${event.message}`));
      worker.postMessage({
        xmllint: {
          inputFiles: [xml, schema, ...files],
          args: ['--nonet', '--schema', schema.fileName, '--noout', xml.fileName],
          initialMemory: INITIAL_PAGES,
          maxMemory: maxMemoryPages,
        },
      });
    });
    const lines = answer.stderr.split('\n').filter((line) => line.trim() !== '');
    const messages = lines.filter((line) => !/ (validates|fails to validate)$/.test(line));
    if (answer.exitCode === 0) return { valid: true, errors: [] };
    if (answer.exitCode === 1 || answer.exitCode === 3 || answer.exitCode === 4) return { valid: false, errors: messages.length ? messages : lines };
    throw new Error(`xmllint exited with ${answer.exitCode}: ${answer.stderr.trim()}`);
  } finally {
    worker.terminate();
  }
}
