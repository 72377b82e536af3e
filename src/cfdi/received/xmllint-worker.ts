/**
 * The thread that runs xmllint (libxml2 compiled to WebAssembly, from xmllint-wasm) for one validation: a message
 * `{ xmllint: { inputFiles, args, initialMemory, maxMemory } }` in, `{ exitCode, stdout, stderr }` out. Ours rather than
 * the package's own thread, which finds itself and its .wasm by its folder on disk: this one is an entry point of the
 * single executable (src/compile.ts) and is handed the .wasm's path, embedded there like every data file.
 */
import Module from 'xmllint-wasm/xmllint-node.js';
import wasmPath from 'xmllint-wasm/xmllint.wasm' with { type: 'file' };

declare const self: Worker;

interface Run {
  inputFiles: { fileName: string; contents: string }[];
  args: string[];
  initialMemory: number;
  maxMemory: number;
}

self.onmessage = (event: MessageEvent<{ xmllint?: Run }>) => {
  const run = event.data?.xmllint;
  if (!run) return; // the package's own listener shares this channel; its messages are not ours
  let stdout = '';
  let stderr = '';
  const done = (exitCode: number) => self.postMessage({ exitCode, stdout, stderr });
  Module({
    inputFiles: run.inputFiles,
    arguments: run.args,
    locateFile: () => wasmPath,
    print: (text: string) => {
      stdout += `${text}\n`;
    },
    printErr: (text: string) => {
      stderr += `${text}\n`;
    },
    onExit: done,
    onAbort: (reason: unknown) => {
      stderr += `WASM Abort: ${String(reason)}\n`;
      done(-1);
    },
    wasmMemory: new WebAssembly.Memory({ initial: run.initialMemory, maximum: run.maxMemory }),
  });
};
