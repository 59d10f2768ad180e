// The transcript panel's page and protocol, and the shared rows it draws: a strict CSP,
// messages from the panel checked before they act, and rows kept up to date item by item
// exactly as a full rebuild would draw them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transcriptHtml } from '../../src/vscode/webviews/transcript-html';
import { TranscriptToHost } from '../../src/shared/transcript-protocol';
import { stripAnsi, type TranscriptItem } from '../../src/shared/transcript-items';
import { RowList, toRows } from '../../src/shared/transcript-rows';

describe('transcript page', () => {
  const html = transcriptHtml({ nonce: 'N0nce', cspSource: 'https://res.example', script: 'https://res.example/t.js', style: 'https://res.example/t.css' });
  const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  it('allows scripts only with the nonce, nothing inline or remote', () => {
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-N0nce'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline handlers');
  });
  it('does not say "Nothing yet" before the transcript has been read (a restored panel flashed it)', () => {
    assert.match(html, /<div id="empty"[^>]* hidden>Nothing yet/);
  });
});

describe('transcript panel → host messages', () => {
  const ok = (m: unknown) => TranscriptToHost.safeParse(m).success;
  it('accepts the protocol and refuses anything else', () => {
    assert.ok(ok({ type: 'ready' }));
    assert.ok(ok({ type: 'send', ref: 'r1', content: 'hi' }));
    assert.ok(ok({ type: 'decidePlan', ref: 'r2', requestId: 'req_a_1', approve: true, feedback: '' }));
    assert.ok(ok({ type: 'decideBash', ref: 'r3', id: 'b1', allow: false }));
    assert.ok(ok({ type: 'mode', mode: 'summary' }));
    assert.ok(!ok({ type: 'mode', mode: 'loud' }));
    assert.ok(!ok({ type: 'send', ref: 'r1', content: '   ' }));
    assert.ok(!ok({ type: 'decidePlan', ref: 'r2', requestId: '../x', approve: true, feedback: '' }));
    assert.ok(!ok({ type: 'openLink', href: 'javascript:alert(1)' }));
    assert.ok(!ok({ type: 'exec', command: 'rm -rf /' }));
  });
});

describe('transcript rows', () => {
  const tool = (key: string, name: string, result?: string): TranscriptItem => ({ kind: 'tool', key, tool: name, input: JSON.stringify({ command: 'ls' }), running: result === undefined, ...(result !== undefined ? { result } : {}) });
  const items: TranscriptItem[] = [
    { kind: 'prompt', key: 'p', text: 'go' },
    { kind: 'text', key: 't', text: 'thinking' },
    tool('a', 'bash', 'x\n'.repeat(40)), tool('b', 'read_file', 'short'),
    { kind: 'tool', key: 'm', tool: 'send_message', input: JSON.stringify({ to: 'lead', content: 'hi' }), running: false, result: 'sent' },
    { kind: 'usage', key: 'u', input: 1, output: 2, cacheRead: 3, cacheWrite: 4 },
    { kind: 'notice', key: 'n', what: 'retry', level: 'warning', text: 'retrying' },
    { kind: 'notice', key: 'e', what: 'error', level: 'error', text: 'boom' },
  ];
  it('summary folds tool churn into one line per run; normal folds long output; verbose shows input', () => {
    const s = toRows(items, 'summary', 'al');
    assert.deepEqual(s.map((r) => r.kind), ['prompt', 'text', 'group', 'mail_out', 'notice']);
    assert.equal(s[2]!.label, '2 tool calls');
    const n = toRows(items, 'normal', 'al');
    assert.deepEqual(n.filter((r) => r.kind === 'tool').map((r) => r.fold), ['closed', 'open']);
    const v = toRows(items, 'verbose', 'al');
    assert.match(v.find((r) => r.label === 'bash')!.input!, /"command": "ls"/);
    assert.equal(v.find((r) => r.label === 'bash')!.fold, 'open');
  });
  it('updated item by item, rows equal a rebuild (tool results arriving late, streamed text replaced)', () => {
    for (const mode of ['summary', 'normal', 'verbose'] as const) {
      const live = new RowList(mode, 'al');
      live.put({ kind: 'text', key: 'live', text: 'thin', streaming: true });
      for (const i of items) live.put(i.kind === 'tool' ? { ...i, running: true, result: undefined } : i);
      live.remove('live');
      for (const i of items) if (i.kind === 'tool') live.put(i);
      assert.deepEqual(live.rows, toRows(items, mode, 'al'), mode);
    }
  });
  it('strips terminal escapes for display', () => {
    assert.equal(stripAnsi('\u001b[31mred\u001b[0m \u001b]0;title\u0007ok\r\n'), 'red ok\n');
  });
});
