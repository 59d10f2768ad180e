// Process-wide sink for data problems (corrupt files, malformed lines): the engine never
// drops bad data silently, it reports here and the host (VS Code log, CLI stderr) listens.
export interface Problem {
  path: string;
  message: string;
}

type Listener = (p: Problem) => void;
const listeners = new Set<Listener>();
const seen = new Set<string>();

/** Reports a problem once per (path, message); falls back to stderr with no listener. */
export function reportProblem(p: Problem): void {
  const key = `${p.path}\u0000${p.message}`;
  if (seen.has(key)) return;
  seen.add(key);
  if (seen.size > 10_000) seen.clear();
  if (listeners.size === 0) {
    console.warn(`[agent-teams] ${p.path}: ${p.message}`);
    return;
  }
  for (const l of listeners) l(p);
}

export function onProblem(listener: Listener): { dispose(): void } {
  listeners.add(listener);
  return { dispose: () => void listeners.delete(listener) };
}
