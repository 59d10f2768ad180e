// @worker-thread-only (loads mvdan-sh synchronously: runs in shell-worker.ts's thread only)
// Splits a shell command into the simple commands it runs, with a real bash parser
// (mvdan-sh), so permission rules judge every part: `npm test; rm -rf ~` is two
// commands, `npm test $(rm x)` runs `rm x`, `npm test > ~/.bashrc` writes a file;
// wrappers and command strings (`env rm`, `bash -c 'rm x'`, `sh <<EOF`) are followed
// through wrappers.ts.
// Anything the rules cannot vouch for (substitutions, redirections to files,
// assignments, functions, loops, background `&`) is reported as a hazard, so no
// allow rule can cover it. See docs/permissions.md.
import type { Node } from 'mvdan-sh';
import { plainCommand, type ShellAnalysis } from './shell-parser';
import { UNKNOWN_WORD, unwrapCommand } from './wrappers';

type Sh = typeof import('mvdan-sh');
let sh: Sh | undefined;
/** Loaded on first use, in the parser's worker thread (shell-worker.ts). */
function parser(): Sh {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy load, see above
  sh ??= require('mvdan-sh') as Sh;
  return sh;
}

const MAX_HAZARDS = 8;

/** Command strings inside command strings (`bash -c "eval 'sh -c …'"`) are followed this deep, then asked about. */
const MAX_DEPTH = 4;

export function analyzeShell(command: string, depth = 0): ShellAnalysis {
  const plain = plainCommand(command);
  if (plain) return plain;
  const { syntax } = parser();
  const src = Buffer.from(command, 'utf8');
  const text = (n: Node) => src.subarray(n.Pos().Offset(), n.End().Offset()).toString('utf8');
  let file: Node;
  try {
    file = syntax.NewParser().Parse(command, 'command');
  } catch (e) {
    const msg = typeof (e as { Error?: () => string }).Error === 'function' ? (e as { Error(): string }).Error() : String(e);
    return { parts: [], inner: [], unknown: [], hazards: [`the command could not be parsed (${msg.replace(/^command:/, '')})`], error: msg };
  }
  const parts: string[][] = [];
  const inner: string[][] = [];
  const hazards = new Set<string>();
  const unknown = new Set<string>();
  const hazard = (h: string) => hazards.size < MAX_HAZARDS && hazards.add(h);
  const unsure = (u: string) => unknown.size < MAX_HAZARDS && unknown.add(u);
  /** What each simple command (by offset) reads on its input from a here-document or here-string. */
  const stdinAt = new Map<number, string | null>();
  const runCode = (code: string) => {
    if (depth >= MAX_DEPTH) return unsure(`\`${clip(code)}\` nests command strings too deeply to follow`);
    const sub = analyzeShell(code, depth + 1);
    inner.push(...sub.parts, ...sub.inner);
    sub.unknown.forEach(unsure);
    if (sub.error) unsure(`the command string \`${clip(code)}\` could not be parsed`);
  };

  syntax.Walk(file, (n) => {
    if (!n) return true;
    switch (syntax.NodeType(n)) {
      case 'Stmt': {
        const cmd = n.Cmd as Node | null;
        if (cmd && syntax.NodeType(cmd) === 'CallExpr') {
          const input = stdinOf(list(n.Redirs), src);
          if (input !== undefined) stdinAt.set(cmd.Pos().Offset(), input);
        }
        break;
      }
      case 'File': case 'BinaryCmd': case 'Subshell': case 'Block': case 'TimeClause':
      case 'Word': case 'Lit': case 'SglQuoted': case 'DblQuoted': case 'Assign':
        break; // containers of further commands; judged through their children
      case 'CallExpr': {
        const args = list(n.Args);
        if (list(n.Assigns).length) hazard(`variable assignment \`${text(n)}\``);
        if (!args.length) break;
        const words = args.map((a) => literalWord(a) ?? null);
        // Still judged by deny/ask rules on what can be read literally.
        parts.push(words.map((w) => w ?? UNKNOWN_WORD));
        if (words.includes(null)) hazard(`expansion in \`${text(n)}\``);
        const u = unwrapCommand(words, stdinAt.get(n.Pos().Offset()));
        inner.push(...u.runs);
        u.unknown.forEach(unsure);
        u.code.forEach(runCode);
        break;
      }
      case 'Redirect': {
        const r = redirectHazard(n, src);
        if (r) hazard(r);
        break;
      }
      case 'CmdSubst': hazard(`command substitution \`${text(n)}\``); break;
      case 'ProcSubst': hazard(`process substitution \`${text(n)}\``); break;
      case 'ParamExp': hazard(`variable expansion \`${text(n)}\``); break;
      case 'ArithmExp': case 'ArithmCmd': hazard(`arithmetic \`${text(n)}\``); break;
      default: hazard(`${describe(syntax.NodeType(n))} \`${clip(text(n))}\``);
    }
    return true;
  });
  for (const s of list(file.Stmts)) markBackground(s, text, hazard);
  // The parser reads a carriage return (or other control character) as a space where bash
  // keeps it in the word: what the rules would see is not what runs.
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(command)) {
    const why = 'a control character in the command';
    hazard(why);
    unsure(why);
  }
  return { parts, inner, unknown: [...unknown], hazards: [...hazards] };
}

/**
 * The text a command reads on its input from a here-document or here-string (null when it
 * expands anything or comes from a file), undefined when its input is not redirected.
 */
function stdinOf(redirs: Node[], src: Buffer): string | null | undefined {
  let input: string | null | undefined;
  for (const r of redirs) {
    const word = r.Word as Node | null;
    const start = (r.OpPos as { Offset(): number }).Offset();
    const op = src.subarray(start, word ? word.Pos().Offset() : r.End().Offset()).toString('utf8').trim();
    const fd = r.N ? String((r.N as Node).Value) : '0';
    if (op.startsWith('<<<')) input = word ? (literalWord(word) ?? null) : null;
    else if (op.startsWith('<<')) input = r.Hdoc && literalHeredoc(r.Hdoc as Node) ? list((r.Hdoc as Node).Parts).map((p) => String(p.Value)).join('') : null;
    else if (op.startsWith('<') && fd === '0') input = null;
  }
  return input;
}

function markBackground(stmt: Node, text: (n: Node) => string, hazard: (h: string) => void): void {
  if (stmt.Background) hazard(`background \`&\` in \`${clip(text(stmt))}\``);
  const cmd = stmt.Cmd as Node | null;
  for (const key of ['X', 'Y']) if (cmd && cmd[key]) markBackground(cmd[key] as Node, text, hazard);
  for (const s of list(cmd?.Stmts)) markBackground(s, text, hazard);
}

/** Output to a file (or input from one) is a hazard; fd duplication and /dev/null are not. */
function redirectHazard(r: Node, src: Buffer): string | undefined {
  const word = r.Word as Node | null;
  const start = (r.OpPos as { Offset(): number }).Offset();
  const op = src.subarray(start, word ? word.Pos().Offset() : r.End().Offset()).toString('utf8').trim();
  const target = word ? literalWord(word) : undefined;
  const whole = src.subarray(r.Pos().Offset(), r.End().Offset()).toString('utf8');
  if (op.startsWith('<<')) return r.Hdoc && !literalHeredoc(r.Hdoc as Node) ? `here-document with expansions \`${clip(whole)}\`` : undefined;
  if (/^[<>]&$/.test(op) && target !== undefined && /^(\d+|-)$/.test(target)) return undefined;
  if (target === '/dev/null') return undefined;
  return `redirection \`${clip(whole)}\``;
}

function literalHeredoc(doc: Node): boolean {
  return list(doc.Parts).every((p) => kind(p) === 'Lit');
}

/** The word's value after quote removal, or undefined when it expands anything. */
export function literalWord(word: Node): string | undefined {
  let out = '';
  for (const p of list(word.Parts)) {
    const k = kind(p);
    if (k === 'Lit') out += unescape(String(p.Value), /\\(.)/gs);
    else if (k === 'SglQuoted') {
      if (p.Dollar) return undefined; // $'…' has its own escapes; not worth vouching for
      out += String(p.Value);
    } else if (k === 'DblQuoted') {
      for (const q of list(p.Parts)) {
        if (kind(q) !== 'Lit') return undefined;
        out += unescape(String(q.Value), /\\([$`"\\\n])/g);
      }
    } else return undefined;
  }
  return out;
}

function unescape(v: string, re: RegExp): string {
  return v.replace(re, (_m, c: string) => (c === '\n' ? '' : c));
}

function kind(n: Node): string {
  return parser().syntax.NodeType(n);
}

/** GopherJS hands Go slices over as arrays (nil as null). */
function list(v: unknown): Node[] {
  return Array.isArray(v) ? (v as Node[]) : [];
}

const NAMES: Record<string, string> = {
  FuncDecl: 'function definition', IfClause: 'if statement', WhileClause: 'loop', ForClause: 'loop',
  CaseClause: 'case statement', DeclClause: 'declaration', LetClause: 'let', TestClause: 'test expression',
  CoprocClause: 'coprocess', ExtGlob: 'extended glob', BraceExp: 'brace expansion',
};

function describe(type: string): string {
  return NAMES[type] ?? type;
}

function clip(s: string): string {
  const one = s.replace(/\s*\n\s*/g, ' ⏎ ');
  return one.length > 80 ? `${one.slice(0, 77)}…` : one;
}
