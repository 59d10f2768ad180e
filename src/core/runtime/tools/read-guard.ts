// Read rules judged on what a file is, not what it is called (docs/permissions.md): a
// symbolic link is judged at its real path, and a file with more than one hard link by its
// identity (device and inode), so `envlink -> .env` and a hard link to `.env` are `.env` for
// read_file, grep, glob and list_dir alike. Knowing which identities Read rules name takes a
// walk of the folders they cover; it happens only when a file with a second hard link turns
// up (rare outside package stores), in the search worker, and is reused for a few seconds.
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readIdentities, strongest } from '../../exec/search/search';
import type { LinkInfo } from '../../exec/search/protocol';
import { compileRules, decideFile, type Decision } from '../../permissions/decide';
import type { RuleSource } from '../../permissions/rules';

/** A walk older than this is done again (files come and go). */
const SCAN_TTL_MS = 10_000;
/** A walk that meets more files stops; a hard-linked file it could not clear is asked about. */
const MAX_SCAN_FILES = 200_000;

type ReadVerdict = 'deny' | 'ask' | undefined;
interface Scan { ids: Map<string, 'deny' | 'ask'>; complete: boolean }
const scans = new Map<string, { at: number; scan: Promise<Scan> }>();

function readRules(source: RuleSource): { deny: string[]; ask: string[] } {
  const rules = compileRules(source);
  const texts = (k: 'deny' | 'ask') => rules[k].filter((r) => r.tool === 'Read').map((r) => r.text);
  return { deny: texts('deny'), ask: texts('ask') };
}

/** Whether any Read rule could hide or hold back a file. */
export function hasReadRules(source: RuleSource): boolean {
  const r = readRules(source);
  return r.deny.length > 0 || r.ask.length > 0;
}

/** The folders to walk: the root, and the fixed start of each absolute pattern (`//etc/x/**` → /etc/x). */
function basesOf(root: string, texts: string[]): string[] {
  const bases = new Set([root]);
  for (const t of texts) {
    const spec = /^Read\((.*)\)$/s.exec(t)?.[1]?.trim();
    if (!spec || !(spec.startsWith('//') || spec.startsWith('~/'))) continue;
    const abs = spec.startsWith('~/') ? path.join(os.homedir(), spec.slice(2)) : spec.slice(1);
    const fixed: string[] = [];
    for (const seg of abs.split('/')) {
      if (/[*?[\]{}!]/.test(seg)) break;
      fixed.push(seg);
    }
    bases.add(fixed.join('/') || '/');
  }
  return [...bases];
}

function scanFor(root: string, source: RuleSource): Promise<Scan> {
  const rules = readRules(source);
  const key = JSON.stringify([root, rules]);
  const hit = scans.get(key);
  if (hit && Date.now() - hit.at < SCAN_TTL_MS) return hit.scan;
  const scan = readIdentities(root, basesOf(root, [...rules.deny, ...rules.ask]), rules, MAX_SCAN_FILES)
    .catch((): Scan => ({ ids: new Map(), complete: false }));
  scans.set(key, { at: Date.now(), scan });
  return scan;
}

/** What Read rules say of a file by its identity; asks when the walk could not see everything. */
async function byIdentity(root: string, source: RuleSource, id: string): Promise<ReadVerdict> {
  const scan = await scanFor(root, source);
  return scan.ids.get(id) ?? (scan.complete ? undefined : 'ask');
}

/** For the search tools: the verdict on a file found through a link (search.ts `linkVerdict`). */
export function linkVerdict(root: string, source: RuleSource): (link: LinkInfo) => Promise<ReadVerdict> {
  return async (link) => strongest(
    link.real !== undefined ? asRead(decideFile(source, 'Read', link.real, path.join(root, link.real))) : undefined,
    link.id !== undefined ? await byIdentity(root, source, link.id) : undefined,
  );
}

function asRead(d: Decision | undefined): ReadVerdict {
  return d?.verdict === 'deny' || d?.verdict === 'ask' ? d.verdict : undefined;
}

/**
 * read_file's decision on `abs` (already its real path): the path's, or — for a file with a
 * second hard link — a stronger one its identity calls for.
 */
export async function readDecision(root: string, source: RuleSource, rel: string, abs: string): Promise<Decision | undefined> {
  const d = decideFile(source, 'Read', rel, abs);
  if (d?.verdict === 'deny' || !hasReadRules(source)) return d;
  const st = await stat(abs).catch(() => undefined);
  if (!st?.isFile() || st.nlink < 2) return d;
  const v = await byIdentity(root, source, `${st.dev}:${st.ino}`);
  if (!v || (v === 'ask' && d?.verdict === 'ask')) return d;
  return { verdict: v, reason: `${rel} is another name (a hard link) for a file ${v === 'deny' ? 'a Read deny rule covers' : 'Read rules ask about, or one that could not be checked'}` };
}
