import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { seededRandom } from '../../src/core/random.js';
import { silentLogger } from '../../src/core/logger.js';
import { collectExpiredEvents, startEventGc } from '../../src/registry/event-gc.js';
import { foldedEventName } from '../../src/registry/event-registry.js';
import { Registry } from '../../src/registry/registry.js';
import { eventBody, openTestRegistry, type TestRegistry } from '../api/harness.js';

describe('event folding', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it('folds repeats within 10 minutes; after the window a repeat starts a new Event', async () => {
    const first = await t.registry.events.create(eventBody());
    await t.clock.advance(10 * 60_000);
    const folded = await t.registry.events.create(eventBody());
    assert.equal(folded.metadata.name, first.metadata.name);
    assert.equal(folded.count, 2);
    assert.equal(folded.lastTimestamp, '2026-11-29T12:10:00.000Z');
    await t.clock.advance(10 * 60_000 + 1);
    const fresh = await t.registry.events.create(eventBody());
    assert.equal(fresh.metadata.name, first.metadata.name);
    assert.notEqual(fresh.metadata.uid, first.metadata.uid);
    assert.equal(fresh.count, 1);
    assert.equal(fresh.firstTimestamp, fresh.lastTimestamp);
    assert.equal((await t.registry.events.list()).items.length, 1);
  });

  it('counts every one of many concurrent repeats, also across two registries on one store', async () => {
    const other = new Registry({ store: t.store, clock: t.clock, random: seededRandom(99) });
    const writes = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? t.registry : other).events.create(eventBody()));
    await Promise.all(writes);
    const { items } = await t.registry.events.list();
    assert.equal(items.length, 1);
    assert.equal(items[0]?.count, 6);
  });

  it('folds on (involvedObject kind, name, namespace, uid, reason, type, message, source) and nothing else', async () => {
    const base = await t.registry.events.create(eventBody());
    const variants = [
      { involvedObject: { kind: 'Zone', name: 'node-1' } },
      { involvedObject: { kind: 'Node', name: 'node-2' } },
      { involvedObject: { kind: 'Node', name: 'node-1', uid: 'u-2' } },
      { involvedObject: { kind: 'Node', name: 'node-1', namespace: 'default' } },
      { involvedObject: { kind: 'Node', name: 'node-1', namespace: 'team-a' } },
      { reason: 'NodeReady' },
      { type: 'Normal' },
      { message: 'other' },
      { source: { component: 'agent' } },
      { source: { component: 'node-controller', host: 'h1' } },
    ];
    for (const v of variants) {
      const ev = await t.registry.events.create(eventBody(v));
      assert.notEqual(ev.metadata.name, base.metadata.name, JSON.stringify(v));
      assert.equal(ev.count, 1);
    }
    const repeat = await t.registry.events.create(eventBody({ count: 7, lastTimestamp: '2026-11-29T12:00:01.000Z' }));
    assert.equal(repeat.metadata.name, base.metadata.name);
    assert.equal(repeat.count, 2);
    const again = await t.registry.events.create(
      eventBody({ involvedObject: { kind: 'Node', name: 'node-1', namespace: 'team-a' } }),
    );
    assert.equal(again.count, 2, 'a repeat in the same namespace folds');
    assert.equal(again.involvedObject.namespace, 'team-a');
  });

  it('never changes an Event whose key differs from the fold: the fold takes the next name', async () => {
    const body = eventBody();
    const first = await t.registry.events.create(body);
    // A PUT (system:masters only over HTTP) rewrites what the Event says; the name stays.
    const changed = await t.registry.events.update(first.metadata.name, {
      ...first,
      message: 'rewritten',
    });
    const again = await t.registry.events.create(body);
    assert.notEqual(again.metadata.name, first.metadata.name);
    assert.equal(again.count, 1);
    assert.equal(again.message, body['message']);
    assert.deepEqual(await t.registry.events.get(first.metadata.name), changed);
    // And the next repeat folds into the second name.
    assert.equal((await t.registry.events.create(body)).count, 2);
  });

  it('derives a valid object name from any involvedObject name', () => {
    const name = foldedEventName({
      involvedObject: { kind: 'Node', name: '_Weird Name_' },
      reason: 'r',
      type: 'Normal',
      message: 'm',
      source: { component: 'c' },
    });
    assert.match(name, /^weird-name\.[0-9a-f]{16}$/);
    const long = foldedEventName({
      involvedObject: { kind: 'Node', name: 'a'.repeat(253) },
      reason: 'r',
      type: 'Normal',
      message: 'm',
      source: { component: 'c' },
    });
    assert.ok(long.length <= 253);
  });

  it('keeps client-sent count and timestamps on create', async () => {
    const ev = await t.registry.events.create(
      eventBody({
        metadata: { name: 'given' },
        count: 4,
        firstTimestamp: '2026-11-29T11:00:00.000Z',
        lastTimestamp: '2026-11-29T11:30:00.000Z',
      }),
    );
    assert.equal(ev.count, 4);
    assert.equal(ev.firstTimestamp, '2026-11-29T11:00:00.000Z');
    assert.equal(ev.lastTimestamp, '2026-11-29T11:30:00.000Z');
  });
});

describe('event TTL', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it('collectExpiredEvents deletes Events whose lastTimestamp is older than the TTL', async () => {
    await t.registry.events.create(eventBody({ message: 'old' }));
    await t.registry.events.create(eventBody({ message: 'refreshed' }));
    await t.clock.advance(30 * 60_000);
    await t.registry.events.create(eventBody({ message: 'young' }));
    await t.registry.events.create(eventBody({ message: 'refreshed' }));
    await t.clock.advance(31 * 60_000);
    assert.equal(await collectExpiredEvents(t.registry, t.clock, 60 * 60_000), 1);
    const left = (await t.registry.events.list()).items.map((e) => e.message).sort();
    assert.deepEqual(left, ['refreshed', 'young']);
  });

  it('startEventGc runs every interval on the injected clock and stops on abort', async () => {
    const stop = new AbortController();
    await t.registry.events.create(eventBody({ message: 'a' }));
    const done = startEventGc({
      registry: t.registry,
      clock: t.clock,
      ttlMs: 60 * 60_000,
      intervalMs: 60_000,
      log: silentLogger,
      signal: stop.signal,
    });
    await t.clock.advance(59 * 60_000);
    assert.equal((await t.registry.events.list()).items.length, 1);
    await t.clock.advance(2 * 60_000);
    assert.equal((await t.registry.events.list()).items.length, 0);
    stop.abort();
    await done;
  });
});
