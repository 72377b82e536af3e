import { renderCfdiPdf, useNativeDeflate, type PdfOptions } from '../../cfdi/pdf.ts';
import { renderRetencionPdf } from '../../cfdi/retenciones/pdf.ts';

/**
 * A PDF render thread (pdf-pool.ts): one render at a time, posted back as a transferred buffer. The fonts and glyph
 * caches stay parsed between renders. Also an entry point of the single executable (src/compile.ts).
 */
declare const self: Worker;

useNativeDeflate();

/** A Retenciones 2.0 (its root element) prints through its own renderer: the pool renders both kinds of document. */
const RETENCIONES_ROOT = /^\s*(?:<\?xml[^>]*\?>\s*)?<retenciones:Retenciones[\s/>]/;

self.onmessage = async ({ data }: MessageEvent<{ xml: string; options: PdfOptions }>) => {
  try {
    const render = RETENCIONES_ROOT.test(data.xml) ? renderRetencionPdf : renderCfdiPdf;
    const pdf = await render(data.xml, data.options);
    self.postMessage({ pdf }, [pdf.buffer]);
  } catch (err) {
    self.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
  // A large document leaves hundreds of MiB of garbage that the thread's heap would otherwise keep for a while.
  Bun.gc(true);
};
