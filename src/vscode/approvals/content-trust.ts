// VS Code's half of "trust follows content" (docs/security.md, "Folder trust"): Workspace
// Trust is asked once per folder and never again, so a hook or `sandbox.mode: "off"` that a
// pull or a landed branch brings would be used unasked. Before the agents start, the control
// files (core/trust/control-files.ts, the same table and fingerprints as the CLI) are compared
// with what was trusted; a changed or new one is asked about once, naming what changed.
// The record is kept in the extension's globalState, never in the workspace. No `vscode`
// import here: the question is passed in, so the logic is tested without VS Code.
import { changeLines, controlFilesOf, fingerprints, readControlFiles, untrustedChanges, type ControlFileChange } from '../../core/session';
import type { FileFingerprint } from '../../shared/trust-schemas';

/** The part of a vscode.Memento used here. */
export interface TrustState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** Folder → file → what was trusted. */
type TrustRecord = Record<string, Record<string, FileFingerprint>>;
export const TRUST_STATE_KEY = 'agentTeams.trustedContent';

export type ContentAnswer = 'trust' | 'ignore';

/** The question's text: each file, what it decides, and what changed. */
export function contentQuestion(changes: readonly ControlFileChange[]): string {
  return `These files decide what agents may do and are not what you trusted in this workspace:\n${changes.flatMap((c) => changeLines(c)).join('\n')}`;
}

/**
 * The control files of `root` not to use this time (empty: all may be used). The first check
 * of a folder records what is there (Workspace Trust has just covered the folder as it is);
 * later, a changed or new file is asked about: "trust" records it, anything else leaves it
 * out of this start and asks again at the next.
 */
export async function untrustedFiles(root: string, state: TrustState, ask: (changes: ControlFileChange[]) => PromiseLike<ContentAnswer | undefined>): Promise<Set<string>> {
  const present = await readControlFiles(root, controlFilesOf('vscode'));
  const all = state.get<TrustRecord>(TRUST_STATE_KEY) ?? {};
  const known = all[root];
  const record = (files: Record<string, FileFingerprint>) => state.update(TRUST_STATE_KEY, { ...all, [root]: files });
  if (!known) {
    await record(fingerprints(present));
    return new Set();
  }
  const changes = untrustedChanges(present, known);
  if (!changes.length) return new Set();
  if ((await ask(changes)) === 'trust') {
    await record({ ...known, ...fingerprints(present) });
    return new Set();
  }
  return new Set(changes.map((c) => c.path));
}

/** Where the extension's own edits are recorded: set by the runtime host of this window. */
let scope: { root: string; state: TrustState } | undefined;
export function setContentTrustScope(root: string, state: TrustState): void {
  scope = { root, state };
}

/**
 * Runs `edit`, the extension's own change to a control file (an "Always allow" answer adds a
 * rule to `.vscode/settings.json`), and keeps the file trusted if it was before: the user's
 * own answer is not asked about again. A file that had already changed unasked stays asked.
 */
export async function keepTrusted(path: string, edit: () => PromiseLike<void>): Promise<void> {
  const s = scope;
  const file = controlFilesOf('vscode').find((f) => f.path === path);
  if (!s || !file) return void (await edit());
  const read = async () => (await readControlFiles(s.root, [file])).get(path)?.fingerprint;
  const before = await read();
  await edit();
  const all = s.state.get<TrustRecord>(TRUST_STATE_KEY) ?? {};
  const known = all[s.root];
  if (!known || known[path]?.sha256 !== before?.sha256) return;
  const after = await read();
  const { [path]: _old, ...rest } = known;
  await s.state.update(TRUST_STATE_KEY, { ...all, [s.root]: after ? { ...rest, [path]: after } : rest });
}
