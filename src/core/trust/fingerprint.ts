// What a control file says, reduced to what trust needs to remember (docs/security.md,
// "Folder trust"): the content's SHA-256, and for JSON each leaf's path with a short hash of
// its value. Comparing two fingerprints names the keys added, changed or removed, so the
// question after a merge or a pull says "hooks.PreToolUse[0].hooks[0].command added", not
// only "changed". Pure: the CLI and VS Code both call it (through core/session).
import { createHash } from 'node:crypto';
import { parse, type ParseError } from 'jsonc-parser';
import type { FileFingerprint } from '../../shared/trust-schemas';

/** Past this many leaves a file is remembered by its hash only (its change is "content changed"). */
const MAX_LEAVES = 2000;
/** Lines of a change summary before "… and N more". */
const MAX_LINES = 6;
const VALUE_CHARS = 80;

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** `a.b[0]["odd key"]`. */
function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const name = /^[A-Za-z_$][\w$.-]*$/.test(key) ? key : JSON.stringify(key);
  return path ? `${path}.${name}` : name;
}

function flatten(value: unknown, path: string, out: Map<string, unknown>): void {
  if (Array.isArray(value) && value.length) value.forEach((v, i) => flatten(v, child(path, i), out));
  else if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length) {
    for (const [k, v] of Object.entries(value)) flatten(v, child(path, k), out);
  } else out.set(path, value);
}

/** A control file's content as read: its fingerprint, and its leaves' values for summaries. */
export interface ReadContent {
  fingerprint: FileFingerprint;
  /** Leaf path → value (JSON only). */
  values?: Map<string, unknown>;
}

/**
 * The fingerprint of `text`. With `keyPrefix`, only top-level keys starting with it count
 * (`.vscode/settings.json`: `agentTeams.`); a file with none of them is `null` (nothing to trust).
 */
export function fingerprintOf(text: string, keyPrefix?: string): ReadContent | null {
  const errors: ParseError[] = [];
  let json: unknown = parse(text.replace(/^\uFEFF/, ''), errors, { allowTrailingComma: true });
  if (errors.length) json = undefined;
  if (keyPrefix) {
    if (!json || typeof json !== 'object' || Array.isArray(json)) return null;
    const kept = Object.entries(json).filter(([k]) => k.startsWith(keyPrefix)).sort(([a], [b]) => a.localeCompare(b));
    if (!kept.length) return null;
    json = Object.fromEntries(kept);
    text = JSON.stringify(json);
  }
  if (json === undefined) return { fingerprint: { sha256: sha256(text) } };
  const values = new Map<string, unknown>();
  flatten(json, '', values);
  if (values.size > MAX_LEAVES) return { fingerprint: { sha256: sha256(text) } };
  const leaves: Record<string, string> = {};
  for (const [k, v] of values) leaves[k] = sha256(JSON.stringify(v) ?? 'undefined').slice(0, 16);
  return { fingerprint: { sha256: sha256(text), leaves }, values };
}

function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > VALUE_CHARS ? `${s.slice(0, VALUE_CHARS - 1)}…` : s;
}

/**
 * What changed from `before` (what was trusted; none: never trusted) to `now`, one line each:
 * `added hooks.Stop[0].hooks[0].command = "…"`, `changed sandbox.mode = "off"`,
 * `removed permissions.deny[0]`. Empty when nothing did.
 */
export function changeSummary(before: FileFingerprint | undefined, now: ReadContent): string[] {
  if (before?.sha256 === now.fingerprint.sha256) return [];
  const leaves = now.fingerprint.leaves;
  if (!leaves || !now.values) return [before ? 'content changed (not JSON, or too large to list by key)' : 'not JSON, or too large to list by key'];
  if (before && !before.leaves) return ['content changed (trusted before its keys were recorded)'];
  const old = before?.leaves ?? {};
  const lines: string[] = [];
  for (const [path, hash] of Object.entries(leaves)) {
    if (old[path] === hash) continue;
    lines.push(`${path in old ? 'changed' : 'added'} ${path || '(value)'} = ${shown(now.values.get(path))}`);
  }
  // An empty object or array that now has keys was a leaf: grown, not removed.
  const grown = (p: string) => Object.keys(leaves).some((n) => !p || n.startsWith(`${p}.`) || n.startsWith(`${p}[`));
  for (const path of Object.keys(old)) if (!(path in leaves) && !grown(path)) lines.push(`removed ${path || '(value)'}`);
  if (!lines.length) return ['formatting changed (no key or value did)'];
  return lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES - 1), `… and ${lines.length - MAX_LINES + 1} more`] : lines;
}
