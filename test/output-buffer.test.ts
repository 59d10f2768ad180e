// OutputBuffer in isolation: head/tail arithmetic and UTF-8 boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutputBuffer, incompleteUtf8Tail } from '../src/core/exec/output-buffer';

test('incompleteUtf8Tail finds partial sequences only', () => {
  const euro = Buffer.from('€'); // e2 82 ac
  assert.equal(incompleteUtf8Tail(euro), 0);
  assert.equal(incompleteUtf8Tail(euro.subarray(0, 1)), 1);
  assert.equal(incompleteUtf8Tail(euro.subarray(0, 2)), 2);
  assert.equal(incompleteUtf8Tail(Buffer.from('a😀').subarray(0, 4)), 3);
  assert.equal(incompleteUtf8Tail(Buffer.from('abc')), 0);
});

test('characters split byte by byte across chunks decode intact', () => {
  const text = 'héllo €uro 😀 日本語\n';
  const bytes = Buffer.from(text);
  const out = new OutputBuffer(1024);
  for (let i = 0; i < bytes.length; i++) out.push('stdout', bytes.subarray(i, i + 1));
  assert.equal(out.finish().text, text);
});

test('a dangling partial character is flushed as U+FFFD at the end', () => {
  const out = new OutputBuffer(1024);
  out.push('stdout', Buffer.from([0x61, 0xe2, 0x82]));
  assert.equal(out.finish().text, 'a\uFFFD');
});

test('truncation cuts on character boundaries and keeps memory to the budget', () => {
  const out = new OutputBuffer(100);
  const all = Buffer.from('€'.repeat(20_000));
  for (let at = 0, i = 0; at < all.length; i++) {
    const size = ((i * 7) % 13) + 1; // odd sizes so splits land inside characters
    out.push('stdout', all.subarray(at, at + size));
    at += size;
  }
  const r = out.finish();
  assert.equal(r.truncated, true);
  assert.ok(!r.text.includes('\uFFFD'), r.text);
  const m = /\[\.\.\. (\d+) bytes truncated \.\.\.\]/.exec(r.text);
  assert.ok(m);
  const kept = Buffer.byteLength(r.text.replace(m[0], '').replace(/\n\n/, ''));
  assert.equal(kept + Number(m[1]), r.totalBytes);
});

test('tail ring wraps correctly with chunks larger and smaller than it', () => {
  const out = new OutputBuffer(20); // head 12, tail 8
  const all = 'abcdefghijklmnopqrstuvwxyz0123456789';
  for (const part of ['abcdefghijklmn', 'opq', 'rstuvwxyz0', '1', '23456789']) out.push('stdout', Buffer.from(part));
  const r = out.finish();
  assert.equal(r.text, `${all.slice(0, 12)}\n[... ${all.length - 20} bytes truncated ...]\n${all.slice(-8)}`);
});
