// `import path from './x.cer' with { type: 'file' }` gives the file's path (inside the executable once compiled).
declare module '*.cer' {
  const path: string;
  export default path;
}
declare module '*.key' {
  const path: string;
  export default path;
}
