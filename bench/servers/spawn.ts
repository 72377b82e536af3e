/** Starts a bench server process and waits for the JSON line it prints with `"ready"` (on stdout or stderr). */
export async function spawnReady<T>(args: string[], readyOn: 'stdout' | 'stderr'): Promise<{ proc: Bun.Subprocess; ready: T }> {
  // The other stream is dropped: servers' request logs would fill the pipe.
  const proc = Bun.spawn([process.execPath, ...args], { stdout: readyOn === 'stdout' ? 'pipe' : 'ignore', stderr: readyOn === 'stderr' ? 'pipe' : 'ignore' });
  const reader = (proc[readyOn] as ReadableStream<Uint8Array>).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args.join(' ')} exited: ${text}`);
    text += new TextDecoder().decode(value);
    const line = text.split('\n').find((l) => l.includes('"ready"'));
    if (line) return { proc, ready: JSON.parse(line) as T };
  }
}
