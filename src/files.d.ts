// `import path from './x.csv' with { type: 'file' }` gives the file's path: on disk when run from source, inside the
// executable once compiled (src/compile.ts). Every data file the service reads at run time is imported this way.
declare module '*.cer' {
  const path: string;
  export default path;
}
declare module '*.key' {
  const path: string;
  export default path;
}
declare module '*.csv' {
  const path: string;
  export default path;
}
declare module '*.ttf' {
  const path: string;
  export default path;
}
declare module '*.xsd' {
  const path: string;
  export default path;
}
declare module '*.wasm' {
  const path: string;
  export default path;
}
/** xmllint-wasm's Emscripten module (its thread's code; src/cfdi/received/xmllint-worker.ts runs it in ours). */
declare module 'xmllint-wasm/xmllint-node.js' {
  const Module: (options: Record<string, unknown>) => Promise<unknown>;
  export default Module;
}
