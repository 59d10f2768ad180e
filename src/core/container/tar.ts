// The smallest tar the engine's archive API needs: one regular file in (putArchive) and the
// first regular file out (getArchive). A bundle is all that crosses, both ways.

const BLOCK = 512;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

/** A ustar archive holding one file `name` (no folders, no links). */
export function tarOneFile(name: string, data: Buffer, mode = 0o644): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar: name too long: ${name}`);
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(data.length, 12), 124, 'ascii');
  h.write(octal(Math.floor(Date.now() / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  const pad = Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK, 0);
  return Buffer.concat([h, data, pad, Buffer.alloc(BLOCK * 2, 0)]);
}

/** The content of the first regular file in a tar archive, or undefined. */
export function firstFileOfTar(tar: Buffer): Buffer | undefined {
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const h = tar.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) return undefined;
    const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
    const type = String.fromCharCode(h[156] ?? 0);
    const body = at + BLOCK;
    if (type === '0' || type === '\0') return tar.subarray(body, body + size);
    at = body + Math.ceil(size / BLOCK) * BLOCK;
  }
  return undefined;
}
