// Project instructions (docs/tools.md): AGENTS.md, CLAUDE.md at the team folder's root and
// .team/instructions.md, given to every agent with its system prompt, each under a heading
// naming its file. They are read once at the start of a work phase, so the prompt prefix
// stays byte-identical (cached) within it. Each file is read only up to its cap (a 10 MB
// file costs 32 KB), invalid UTF-8 is replaced and said so, binary files and links that
// lead outside the folder are left out with a note.
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../exec/confine';
import { incompleteUtf8Tail } from '../exec/output-buffer';

export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.team/instructions.md'] as const;
export const MAX_INSTRUCTION_BYTES = 32 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The instructions section for `root`'s files ('' when there are none). */
export async function loadInstructions(root: string, maxBytes = MAX_INSTRUCTION_BYTES): Promise<string> {
  const sections: string[] = [];
  const realRoot = await realpath(root).catch(() => path.resolve(root));
  for (const name of INSTRUCTION_FILES) {
    const s = await readOne(realRoot, name, maxBytes);
    if (s) sections.push(`## ${name}\n\n${s}`);
  }
  if (!sections.length) return '';
  return [
    '# Project instructions',
    'The files below come from the project. Follow them where they apply to your work; your role, the team protocols and the user\'s requests come first.',
    ...sections,
  ].join('\n\n');
}

async function readOne(root: string, name: string, maxBytes: number): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(path.join(root, name));
  } catch {
    return undefined; // absent (or a dangling link): nothing to give
  }
  if (!isInside(root, real)) return `[${name} is a link to a file outside the workspace; it was not read.]`;
  let fh;
  try {
    fh = await open(real, 'r');
  } catch (e) {
    return `[${name} could not be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.]`;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    const buf = Buffer.alloc(Math.min(st.size, maxBytes));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    let bytes = buf.subarray(0, bytesRead);
    if (bytes.subarray(0, 8192).includes(0)) return `[${name} looks binary (it holds NUL bytes); it was not read.]`;
    const cut = st.size > bytesRead;
    if (cut) bytes = bytes.subarray(0, bytes.length - incompleteUtf8Tail(bytes));
    let text: string;
    const notes: string[] = [];
    try {
      text = utf8.decode(bytes);
    } catch {
      text = bytes.toString('utf8');
      notes.push(`[${name} is not valid UTF-8: the invalid bytes are shown as \uFFFD.]`);
    }
    text = text.replace(/^\uFEFF/, '').trim();
    if (cut) notes.push(`[${name} was cut here: it is ${formatSize(st.size)}; only the first ${formatSize(bytes.length)} are given. Read the rest with read_file if you need it.]`);
    return [text, ...notes].filter(Boolean).join('\n\n') || undefined;
  } catch (e) {
    return `[${name} could not be read: ${(e as Error).message}.]`;
  } finally {
    await fh.close();
  }
}

function formatSize(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

/** The system prompt for one work phase: the agent's own, then the project's instructions. */
export async function phaseSystem(base: string, root: string): Promise<string> {
  const extra = await loadInstructions(root).catch(() => '');
  return extra ? `${base}\n\n${extra}` : base;
}
