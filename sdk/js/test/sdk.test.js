// The JavaScript SDK's own rules, natively (`node --test sdk/js/test`): how a host refusal
// arrives, pages, argument counts, refusal codes and the contract's exports. Run by
// tests/tests/author.rs.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CapError, Plugin, countArg, page, setBackend, store } from '../camber_sdk.js';
import { context, withFakeStore } from '../testing.js';

test('a host refusal arrives as a CapError with its code', () => {
  const saved = setBackend({
    store: {
      points: () => {
        throw Object.assign(new Error('refused'), { payload: { code: 'not-allowed', message: "facility 'x' is outside this call" } });
      },
    },
  });
  try {
    assert.throws(() => store.points('x'), { code: 'not_allowed', detail: "facility 'x' is outside this call" });
  } finally {
    setBackend(saved);
  }
});

test('without a host a read is unavailable', () => {
  assert.throws(() => store.points('hq'), { code: 'unavailable' });
});

test('the fake refuses outside its allowlist and records progress', () => {
  withFakeStore({ allowed: ['hq'], points: [['AHU-1', 'ahu', 'sat']] }, () => {
    assert.deepEqual(store.points('hq').map((p) => p.equip), ['AHU-1']);
    assert.throws(() => store.points('annex'), { code: 'not_allowed' });
  });
});

test('a whole list has no notice and a cut one has', () => {
  assert.deepEqual(page([1, 2, 3], 'rows', 0, 3), [[1, 2, 3], null]);
  const [rows, notice] = page([...Array(30).keys()], 'rows', 25, 25, 'sorted');
  assert.deepEqual(rows, [25, 26, 27, 28, 29]);
  assert.deepEqual(notice, { list: 'rows', offset: 25, limit: 25, total: 30, order: 'sorted' });
  assert.equal(page([1], 'rows', 1e12, 5000)[1].limit, 1000);
});

test('counts take whole non-negative numbers only', () => {
  const args = { n: 7, neg: -1, flag: true, nan: NaN, text: '3' };
  assert.deepEqual(['n', 'neg', 'flag', 'nan', 'text', 'missing'].map((k) => countArg(args, k, 9)), [7, 9, 9, 9, 9, 9]);
});

test('a code outside the registry is a defect and a message is one line', () => {
  assert.throws(() => new CapError('nope', 'x'), TypeError);
  assert.equal(CapError.invalid('a\nb\u001b[2Jc').detail, 'a bc');
});

test('the exports answer refusals as the contract carries them', () => {
  const plugin = new Plugin()
    .capability({ name: 'good', description: 'd', handler: (a) => ({ data: { n: a.n }, text: 't', facts: [] }) })
    .capability({ name: 'bad', description: 'd', handler: () => 1 })
    .capability({ name: 'boom', description: 'd', handler: () => { throw new RangeError('/home/x broke'); } });
  const saved = setBackend(null);
  const world = plugin.exports({});
  setBackend(saved);
  const ctx = { allowedFacilities: [], minTrust: 0.5, maxRows: 10, caller: 't' };
  assert.equal(world.call('good', '{"n":2}', ctx).data, '{"n":2}');
  for (const [name, args, code] of [['missing', '{}', 'unknown-capability'], ['good', '{', 'invalid-params'], ['bad', '{}', 'internal'], ['boom', '{}', 'internal']]) {
    assert.throws(() => world.call(name, args, ctx), (e) => e.payload.code === code, name);
  }
  assert.throws(() => world.call('boom', '{}', ctx), (e) => e.payload.message === "'boom' raised RangeError: /home/x broke");
  assert.throws(() => plugin.capability({ name: 'good' }), /two capabilities/);
  assert.deepEqual(world.describe().map((d) => d.name), ['good', 'bad', 'boom']);
});
