// The inbox webview's page and protocol, without VS Code: a strict CSP with the render's nonce,
// fresh nonces, and host-side validation of what the webview posts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebviewToHost } from '../../src/shared/webview-protocol';
import { inboxHtml, nonce } from '../../src/vscode/webviews/inbox-html';

describe('inbox page', () => {
  const html = inboxHtml({ nonce: 'N0nce', cspSource: 'https://res.example', script: 'https://res.example/inbox.js', style: 'https://res.example/inbox.css' });
  const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';

  it('allows scripts only with the nonce and nothing inline or remote', () => {
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-N0nce'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.match(html, /<script nonce="N0nce" src="https:\/\/res.example\/inbox.js"><\/script>/);
  });

  it('gets a fresh nonce every render', () => {
    const seen = new Set(Array.from({ length: 50 }, () => nonce()));
    assert.equal(seen.size, 50);
    for (const n of seen) assert.ok(Buffer.from(n, 'base64').length >= 16);
  });
});

describe('webview → host messages', () => {
  const ok = (m: unknown) => WebviewToHost.safeParse(m).success;

  it('accepts the protocol', () => {
    assert.ok(ok({ type: 'ready' }));
    assert.ok(ok({ type: 'send', ref: 'r1', to: 'alice', content: 'hi' }));
    assert.ok(ok({ type: 'decide', ref: 'r2', requestId: 'req_abc_12', approve: false, feedback: 'more tests' }));
    assert.ok(ok({ type: 'openLink', href: 'https://example.com/x' }));
  });

  it('rejects anything else', () => {
    assert.ok(!ok({ type: 'eval', code: '1' }));
    assert.ok(!ok({ type: 'send', ref: 'r1', to: '../etc/passwd', content: 'x' }));
    assert.ok(!ok({ type: 'send', ref: 'r1', to: 'alice', content: '   ' }));
    assert.ok(!ok({ type: 'decide', ref: 'r2', requestId: '../../x', approve: true, feedback: '' }));
    assert.ok(!ok({ type: 'decide', ref: 'r2', requestId: 'req_1', approve: 'yes', feedback: '' }));
    assert.ok(!ok({ type: 'openLink', href: 'javascript:alert(1)' }));
    assert.ok(!ok({ type: 'openLink', href: 'command:workbench.action.terminal.new' }));
    assert.ok(!ok('ready'));
  });
});
