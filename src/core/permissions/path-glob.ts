// Path patterns of Edit/Write/Read rules (docs/permissions.md), compiled with picomatch. A
// pattern with several `**` (`a/**/b/**/c/**/d`) becomes a regular expression that
// backtracks for minutes on a deep path, and rules are checked on the host's loop (for every
// file grep reports, too). Such patterns are matched folder by folder instead: picomatch for
// each segment, `**` as any number of segments — time proportional to pattern × path.
import picomatch from 'picomatch';

/** At most this many `**` go to picomatch whole (its regex is polynomial in the path's depth, of that degree). */
const WHOLE_MAX_GLOBSTARS = 2;

export function globMatcher(pattern: string, opts: { basename?: boolean } = {}): (path: string) => boolean {
  const segs = pattern.split('/');
  const globstars = segs.filter((s, i) => s === '**' && segs[i - 1] !== '**').length;
  // Braces may hold a `/` (`{src,lib/x}/**`): only picomatch reads those correctly.
  if (globstars <= WHOLE_MAX_GLOBSTARS || /\{[^}]*\/[^}]*\}/.test(pattern) || opts.basename) {
    return picomatch(pattern, { dot: true, basename: opts.basename ?? false });
  }
  // Consecutive `**` are one.
  const parts = segs.filter((s, i) => !(s === '**' && segs[i - 1] === '**'));
  const one = parts.map((s) => (s === '**' ? null : s === '' ? (x: string) => x === '' : picomatch(s, { dot: true })));
  // As picomatch has it: a trailing `/**` after a wildcard segment needs at least one more
  // name (`*/**` does not match `b`), after a literal one it need not (`a/**` matches `a`).
  const last = parts.length - 1;
  const trailingNeedsOne = parts[last] === '**' && last > 0 && /[*?[\]{}()!+@]/.test(parts[last - 1]!);
  return (path) => {
    const names = path.split('/');
    // reach[j]: the parts so far can consume exactly the first j names.
    let reach = new Array<boolean>(names.length + 1).fill(false);
    reach[0] = true;
    for (const [i, m] of one.entries()) {
      const next = new Array<boolean>(names.length + 1).fill(false);
      if (m === null) {
        const strict = i === last && trailingNeedsOne;
        let any = false;
        for (let j = 0; j <= names.length; j++) {
          if (strict) (next[j] = any, any ||= reach[j]!);
          else next[j] = any ||= reach[j]!;
        }
      } else {
        for (let j = 0; j < names.length; j++) if (reach[j] && m(names[j]!)) next[j + 1] = true;
      }
      reach = next;
    }
    return reach[names.length]!;
  };
}
