import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateCost, formatCost } from '../../src/core/runtime/pricing';

test('cost is priced per family; cache reads are cheap, writes dearer; unknown models are marked', () => {
  const u = { input: 1_000_000, output: 1_000_000, cache_read: 0, cache_write: 0 };
  assert.equal(estimateCost('claude-sonnet-5-5', u).usd, 18);
  assert.equal(estimateCost('claude-haiku-4-5', u).usd, 6);
  assert.equal(estimateCost('claude-opus-4-5', u).usd, 30);
  assert.equal(estimateCost('claude-sonnet-4-6', { cache_read: 1_000_000 }).usd.toFixed(2), '0.30');
  assert.equal(estimateCost('claude-sonnet-4-6', { cache_write: 1_000_000 }).usd, 3.75);
  const odd = estimateCost('mystery-model', u);
  assert.equal(odd.known, false);
  assert.equal(formatCost(odd), '≈$18.00');
  assert.equal(formatCost(estimateCost('claude-haiku-4-5', { input: 10 })), '<$0.01');
  assert.equal(formatCost(estimateCost('claude-haiku-4-5', {})), '$0.00');
});
