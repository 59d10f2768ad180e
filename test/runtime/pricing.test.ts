import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateCost, formatCost } from '../../src/core/runtime/pricing';

test('cost is priced per family; cache reads are cheap, writes dearer; unknown models show "price unknown", not a guess', () => {
  const u = { input: 1_000_000, output: 1_000_000, cache_read: 0, cache_write: 0 };
  assert.equal(estimateCost('claude-sonnet-5-5', u).usd, 18);
  assert.equal(estimateCost('claude-haiku-4-5', u).usd, 6);
  assert.equal(estimateCost('claude-opus-4-5', u).usd, 30);
  assert.equal(estimateCost('claude-sonnet-4-6', { cache_read: 1_000_000 }).usd.toFixed(2), '0.30');
  assert.equal(estimateCost('claude-sonnet-4-6', { cache_write: 1_000_000 }).usd, 3.75);
  const odd = estimateCost('mystery-model', u);
  assert.equal(odd.known, false);
  assert.equal(odd.usd, 0);
  assert.equal(formatCost(odd), 'price unknown');
  // A proxy's name that still says the family is priced by it; a sum with an unknown part says so.
  assert.equal(estimateCost('openrouter/anthropic/claude-sonnet-4.5', u).usd, 18);
  assert.equal(formatCost({ usd: 1.5, known: false }), '$1.50 + price unknown');
  assert.equal(formatCost(estimateCost('mystery-model', {})), '$0.00');
  assert.equal(formatCost(estimateCost('claude-haiku-4-5', { input: 10 })), '<$0.01');
  assert.equal(formatCost(estimateCost('claude-haiku-4-5', {})), '$0.00');
});
