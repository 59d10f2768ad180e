// The webview's side of a typed protocol: every message is validated against the shared
// schema before it is posted, and an answer (`result` with the same ref) reaches its caller.
export interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

type Check<T> = { safeParse(m: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } };
export type OnResult = (ok: boolean, error?: string) => void;

export function hostLink<T>(vscode: VsCodeApi, schema: Check<T>) {
  const waiting = new Map<string, OnResult>();
  let seq = 0;
  return {
    nextRef: (): string => `r${++seq}`,
    /** Validates and posts; `onResult` hears the host's answer. */
    post(msg: T, onResult?: OnResult): void {
      const checked = schema.safeParse(msg);
      if (!checked.success) {
        onResult?.(false, checked.error.issues[0]?.message ?? 'invalid');
        return;
      }
      const ref = (msg as { ref?: unknown }).ref;
      if (onResult && typeof ref === 'string') waiting.set(ref, onResult);
      vscode.postMessage(checked.data);
    },
    /** The host answered the message `ref`. */
    settle(ref: string, ok: boolean, error?: string): void {
      const r = waiting.get(ref);
      waiting.delete(ref);
      r?.(ok, error);
    },
  };
}
