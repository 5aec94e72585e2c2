import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListOptions, ObjectList } from '../../src/client/api-client.js';
import { DEFAULT_PAGE_SIZE, listAll, listPages } from '../../src/client/list-pages.js';
import { BadRequestError, GoneError } from '../../src/core/errors.js';

type Item = { name: string };

/** A server of `total` items at `rv`, paging by offset tokens; `fail(n, options)` may throw for request n (from 1). */
function pager(total: number, rv = '7', fail: (n: number, o: ListOptions) => void = () => {}) {
  const requests: ListOptions[] = [];
  const fetchPage = async (o: ListOptions): Promise<ObjectList<Item>> => {
    requests.push(o);
    fail(requests.length, o);
    const from = o.continue === undefined ? 0 : Number(o.continue);
    const to = Math.min(total, from + (o.limit ?? total));
    const items = Array.from({ length: to - from }, (_, i) => ({ name: `i${from + i}` }));
    return {
      apiVersion: 'v1',
      kind: 'ItemList',
      metadata: to < total ? { resourceVersion: rv, continue: String(to) } : { resourceVersion: rv },
      items,
    };
  };
  return { requests, fetchPage };
}

describe('client paging helpers', () => {
  it('list() with a limit answers that one page, continue included', async () => {
    const p = pager(10);
    const page = await listAll(p.fetchPage, { limit: 4, labelSelector: 'a=b' });
    assert.equal(page.items.length, 4);
    assert.equal(page.metadata.continue, '4');
    assert.deepEqual(p.requests, [{ limit: 4, labelSelector: 'a=b' }]);
  });

  it('list() without a limit follows continue in pages of 500 and answers one list', async () => {
    const p = pager(1234);
    const all = await listAll(p.fetchPage, { fieldSelector: 'x=y' });
    assert.equal(all.items.length, 1234);
    assert.equal(all.items[1233]?.name, 'i1233');
    assert.deepEqual(all.metadata, { resourceVersion: '7' });
    assert.deepEqual(
      p.requests.map((r) => [r.limit, r.continue, r.fieldSelector]),
      [
        [DEFAULT_PAGE_SIZE, undefined, 'x=y'],
        [DEFAULT_PAGE_SIZE, '500', 'x=y'],
        [DEFAULT_PAGE_SIZE, '1000', 'x=y'],
      ],
    );
  });

  it('list() starts again from the first page when the list expires midway (410), at most three times', async () => {
    const once = pager(1200, '7', (n) => {
      if (n === 2) throw new GoneError('the list snapshot expired');
    });
    const all = await listAll(once.fetchPage);
    assert.equal(all.items.length, 1200);
    assert.deepEqual(
      once.requests.map((r) => r.continue),
      [undefined, '500', undefined, '500', '1000'],
    );
    const always = pager(1200, '7', (_n, o) => {
      if (o.continue !== undefined) throw new GoneError('the list snapshot expired');
    });
    await assert.rejects(listAll(always.fetchPage), GoneError);
    assert.equal(always.requests.filter((r) => r.continue === undefined).length, 3);
    const bad = pager(1200, '7', (n) => {
      if (n === 2) throw new BadRequestError('nope');
    });
    await assert.rejects(listAll(bad.fetchPage), BadRequestError, 'only Gone starts again');
    assert.equal(bad.requests.length, 2);
  });

  it('listPages yields every page at its size; an empty continue ends the list as an absent one does', async () => {
    const p = pager(9);
    const pages: ObjectList<Item>[] = [];
    for await (const page of listPages(p.fetchPage, { limit: 4 })) pages.push(page);
    assert.deepEqual(
      pages.map((x) => x.items.length),
      [4, 4, 1],
    );
    const k8s = async (): Promise<ObjectList<Item>> => ({
      apiVersion: 'v1',
      kind: 'ItemList',
      metadata: { resourceVersion: '1', continue: '' },
      items: [{ name: 'only' }],
    });
    assert.deepEqual((await listAll(k8s)).items, [{ name: 'only' }]);
  });

  it('listPages passes a GoneError midway on: the caller decides', async () => {
    const p = pager(1200, '7', (n) => {
      if (n === 2) throw new GoneError('the list snapshot expired');
    });
    const seen: number[] = [];
    await assert.rejects(async () => {
      for await (const page of listPages(p.fetchPage)) seen.push(page.items.length);
    }, GoneError);
    assert.deepEqual(seen, [500]);
  });
});
