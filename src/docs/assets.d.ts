// `import path from 'swagger-ui-dist/…' with { type: 'file' }` gives the file's path (inside the executable once compiled).
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string;
  export default path;
}
