// What a simple command really runs, for deny and ask rules: `env rm x`, `nohup rm x`,
// `timeout 5 rm x`, `xargs rm`, `find . -delete` and `/bin/rm x` all run `rm`; `bash -c 'rm x'`,
// `eval rm x`, `alias x='rm'` and `sh <<EOF` run code that must be parsed too. Pure (no
// parser here): the code strings go back to the caller (shell-parts.ts, in the parser's
// thread), which parses them as commands of their own. A wrapper whose command cannot be read
// before it runs (`$(echo rm) x`, `eval "$c"`, `echo rm x | sh`, an option we do not know)
// is reported as unknown, and a command with an unknown name is never cleared of deny and ask
// rules (docs/permissions.md, "Rules that hold").

/** A word after quote removal, or null when its value is only known when it runs. */
export type ShellWord = string | null;

export interface Unwrapped {
  /** The commands run under wrappers (`rm x` for `env rm x`), judged by deny and ask rules. */
  runs: string[][];
  /** Why some command's name is not known before it runs. */
  unknown: string[];
  /** Shell code the command runs (`bash -c`, `eval`, aliases, here-documents fed to a shell). */
  code: string[];
}

/** The unknown word in a part (rules never match it). */
export const UNKNOWN_WORD = '\u0000';

interface Options {
  /** Short options that take a value (`-u root`, `-uroot`). */
  arg?: string;
  /** Short options that do not. */
  flags?: string;
  /** Long options that take a value (`--user root`, `--user=root`). */
  longArg?: string[];
  longFlags?: string[];
  /** `-5` (nice's old form). */
  numeric?: boolean;
  /** `NAME=value` words before the command (env, sudo). */
  assigns?: boolean;
  /** Words between the options and the command (timeout's duration, chroot's folder). */
  skip?: number;
}

/** Commands that run the rest of their words as a command, and how to find it. */
const WRAPPERS: Record<string, Options> = {
  command: { flags: 'pvV' },
  builtin: {},
  exec: { arg: 'a', flags: 'cl' },
  nohup: {},
  busybox: {},
  unbuffer: {},
  env: { arg: 'uCS', flags: 'i0v', longArg: ['unset', 'chdir', 'split-string', 'block-signal', 'default-signal', 'ignore-signal'], longFlags: ['ignore-environment', 'null', 'debug', 'list-signal-handling'], assigns: true },
  timeout: { arg: 'sk', flags: 'v', longArg: ['signal', 'kill-after'], longFlags: ['preserve-status', 'foreground', 'verbose'], skip: 1 },
  nice: { arg: 'n', longArg: ['adjustment'], numeric: true },
  ionice: { arg: 'cnp', flags: 't', longArg: ['class', 'classdata'], longFlags: ['ignore'] },
  sudo: { arg: 'ugpCrtUDRTh', flags: 'AbEeHiKklnPSsVv', longArg: ['user', 'group', 'prompt', 'close-from', 'role', 'type', 'other-user', 'chdir', 'chroot', 'command-timeout', 'host'], longFlags: ['askpass', 'background', 'preserve-env', 'set-home', 'login', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'reset-timestamp', 'remove-timestamp'], assigns: true },
  doas: { arg: 'uC', flags: 'ns' },
  setsid: { flags: 'cfw', longFlags: ['ctty', 'fork', 'wait'] },
  stdbuf: { arg: 'ioe', longArg: ['input', 'output', 'error'] },
  time: { arg: 'fo', flags: 'apqv', longArg: ['format', 'output'], longFlags: ['append', 'portability', 'quiet', 'verbose'] },
  chroot: { longArg: ['userspec', 'groups'], longFlags: ['skip-chdir'], skip: 1 },
  flock: { arg: 'Ewc', flags: 'sxunoFv', longArg: ['conflict-exit-code', 'timeout', 'wait', 'command'], longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose'], skip: 1 },
  xargs: { arg: 'adEeIiLlnPs', flags: '0oprtx', longArg: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'], longFlags: ['null', 'open-tty', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'show-limits'] },
  watch: { arg: 'nq', flags: 'bcdegtpwx', longArg: ['interval', 'equexit', 'differences'], longFlags: ['beep', 'color', 'no-color', 'errexit', 'chgexit', 'no-title', 'precise', 'no-wrap', 'exec', 'no-linewrap'] },
};

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'rbash']);
/** Optional values of clustered short options these wrappers take as the option's value. */
const OPTIONAL_VALUE: Record<string, string> = { xargs: 'eil' };
const MAX_STEPS = 16;

function basename(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

const shownWords = (words: readonly ShellWord[]) => words.map((w) => w ?? '…').join(' ');

/**
 * What one simple command runs besides itself. `stdin` is the text of a here-document or
 * here-string fed to it (null when that text expands anything, undefined when there is none).
 */
export function unwrapCommand(words: readonly ShellWord[], stdin?: string | null): Unwrapped {
  const out: Unwrapped = { runs: [], unknown: [], code: [] };
  let cur = words;
  for (let step = 0; cur.length; step++) {
    const name = cur[0];
    if (name === null || name === undefined || (/[*?[\]{}~]/.test(name) && name !== '[' && name !== '[[')) {
      out.unknown.push(`the command name in \`${shownWords(cur)}\` is only known when it runs`);
      return out;
    }
    if (step >= MAX_STEPS) {
      out.unknown.push(`\`${shownWords(words)}\` wraps commands too deeply to follow`);
      return out;
    }
    const base = basename(name);
    if (base !== name) out.runs.push([base, ...cur.slice(1).map((w) => w ?? UNKNOWN_WORD)]);
    const args = cur.slice(1);
    const next = special(base, args, stdin, out) ?? wrapped(base, args, out);
    if (!next) return out;
    stdin = base === 'xargs' || base === 'find' ? undefined : stdin;
    cur = next;
    if (cur.length) out.runs.push(cur.map((w) => w ?? UNKNOWN_WORD));
  }
  return out;
}

/** The command a wrapper from WRAPPERS runs, or undefined when `name` is none (or runs nothing). */
function wrapped(name: string, args: readonly ShellWord[], out: Unwrapped): readonly ShellWord[] | undefined {
  const o = WRAPPERS[name];
  if (!o) return undefined;
  const unknown = (why: string) => (out.unknown.push(`${why} in \`${name} ${shownWords(args)}\``), undefined);
  let i = 0;
  let split: ShellWord | undefined; // env -S
  let runsCode = false; // sudo -s / -i, flock -c, watch without -x
  let execDirect = false;
  for (; i < args.length; i++) {
    const w = args[i];
    if (w === null) return unknown('an option only known when it runs');
    if (w === '--') { i++; break; }
    if (w === '-' && name === 'env') continue;
    if (w.startsWith('--') && w.length > 2) {
      const [long, value] = [w.slice(2).split('=')[0]!, w.includes('=') ? w.slice(w.indexOf('=') + 1) : undefined];
      if (o.longArg?.includes(long)) {
        const v = value ?? args[++i];
        if (name === 'env' && long === 'split-string') split = v ?? null;
        if (name === 'flock' && long === 'command') { runsCode = true; split = v ?? null; }
      } else if (!o.longFlags?.includes(long)) return unknown(`an unknown option \`${w}\``);
      if (long === 'shell' || long === 'login') runsCode = true;
      if (long === 'exec') execDirect = true;
      continue;
    }
    if (w.startsWith('-') && w.length > 1) {
      if (o.numeric && /^-\d+$/.test(w)) continue;
      for (let k = 1; k < w.length; k++) {
        const c = w[k]!;
        if (o.arg?.includes(c)) {
          const optional = OPTIONAL_VALUE[name]?.includes(c);
          const v = k + 1 < w.length ? w.slice(k + 1) : optional ? '' : args[++i];
          if (name === 'env' && c === 'S') split = v ?? null;
          if (name === 'flock' && c === 'c') { runsCode = true; split = v ?? null; }
          break;
        }
        if (!o.flags?.includes(c)) return unknown(`an unknown option \`-${c}\``);
        if (name === 'command' && (c === 'v' || c === 'V')) return undefined;
        if ((name === 'sudo' || name === 'doas') && (c === 's' || c === 'i')) runsCode = true;
        if (name === 'watch' && c === 'x') execDirect = true;
        if (name === 'sudo' && (c === 'e' || c === 'l' || c === 'v' || c === 'K' || c === 'V')) return undefined;
      }
      continue;
    }
    if (o.assigns && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue;
    break;
  }
  if (split !== undefined) {
    if (split === null) return unknown('a command string only known when it runs');
    if (name === 'flock') return (out.code.push(split), undefined);
    out.code.push([split, ...args.slice(i).map((w) => w ?? '"$UNKNOWN"')].join(' '));
    return undefined;
  }
  if (args.slice(i, i + (o.skip ?? 0)).includes(null)) return unknown('a word only known when it runs');
  const rest = args.slice(i + (o.skip ?? 0));
  if (name === 'flock' && rest[0] === '-c') return rest[1] ? (out.code.push(rest[1]), undefined) : unknown('a command string only known when it runs');
  if (name === 'xargs') return [...(rest.length ? rest : ['echo']), null];
  if ((name === 'watch' && !execDirect) || (runsCode && rest.length)) {
    if (rest.includes(null)) return unknown('a command string only known when it runs');
    out.code.push(rest.join(' '));
    return undefined;
  }
  if (runsCode) return unknown('a shell reading its commands when it runs');
  return rest;
}

/** Shells, eval, find, alias and trap; undefined when `name` is none of them. */
function special(name: string, args: readonly ShellWord[], stdin: string | null | undefined, out: Unwrapped): readonly ShellWord[] | undefined | [] {
  const code = (s: ShellWord, what: string): [] => {
    if (s === null) out.unknown.push(`${what} only known when it runs`);
    else out.code.push(s);
    return [];
  };
  if (SHELLS.has(name)) {
    let i = 0;
    let dashC = false;
    for (; i < args.length; i++) {
      const w = args[i];
      if (w === null) return code(null, `\`${name}\` with an option`);
      if (w === '--' || w === '-') { i++; break; }
      if (/^--(rcfile|init-file)$/.test(w) || /^[-+][oO]$/.test(w)) { i++; continue; }
      if (/^--/.test(w)) continue;
      if (/^[-+][A-Za-z]+$/.test(w)) { if (w.startsWith('-') && w.includes('c')) dashC = true; continue; }
      break;
    }
    if (dashC) return code(args[i] ?? '', `the command string of \`${name} -c\``);
    const script = args[i];
    if (script === undefined) return stdin === undefined ? code(null, `what \`${name}\` reads from its input is`) : code(stdin, `the here-document fed to \`${name}\` is`);
    if (script === null || /^\/(dev|proc)\//.test(script)) return code(null, `the script \`${name}\` runs is`);
    return [];
  }
  if (name === 'source' || name === '.') {
    const script = args[0];
    if (script === null || script === undefined || /^\/(dev|proc)\//.test(script)) return code(null, `the script \`${name}\` runs is`);
    return [];
  }
  if (name === 'eval') {
    if (args.includes(null)) return code(null, 'the code `eval` runs is');
    return code(args.join(' '), 'eval');
  }
  if (name === 'alias') {
    for (const a of args) {
      if (a === null) code(null, 'an alias');
      else if (a.includes('=')) code(a.slice(a.indexOf('=') + 1), 'an alias');
    }
    return [];
  }
  if (name === 'trap') {
    const first = args[0];
    if (first === undefined || (first !== null && (first.startsWith('-') || /^\d+$/.test(first)))) return [];
    return code(first, 'the code `trap` runs is');
  }
  if (name === 'find') return find(args, out);
  return undefined;
}

/** `find -exec cmd {} ;` (and -execdir, -ok, -okdir) runs cmd; `-delete` is `rm`. */
function find(args: readonly ShellWord[], out: Unwrapped): [] {
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w === '-delete') out.runs.push(['rm', UNKNOWN_WORD]);
    if (w === '-exec' || w === '-execdir' || w === '-ok' || w === '-okdir') {
      let j = i + 1;
      while (j < args.length && args[j] !== ';' && args[j] !== '+') j++;
      const cmd = args.slice(i + 1, j);
      if (cmd.length) {
        const inner = unwrapCommand(cmd);
        out.runs.push(cmd.map((x) => x ?? UNKNOWN_WORD), ...inner.runs);
        out.unknown.push(...inner.unknown);
        out.code.push(...inner.code);
      }
      i = j;
    }
  }
  return [];
}
