import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { contentLength, PipelinePool, type PipelineHandler } from '../../../src/fleet/light/http-pipeline.js';
import { eventually } from '../../support/eventually.js';

interface Answer {
  tag: number;
  status: number;
  body: string;
}

class Collect implements PipelineHandler {
  answers: Answer[] = [];
  failures: Array<{ tag: number; reason: string }> = [];
  onResponse(tag: number, status: number, buf: Buffer, start: number, end: number): void {
    this.answers.push({ tag, status, body: buf.toString('utf8', start, end) });
  }
  onFailure(tag: number, reason: string): void {
    this.failures.push({ tag, reason });
  }
}

const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
const put = (path: string, body: string): string =>
  `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('PipelinePool against a real node:http server', () => {
  let server: Server;
  let port = 0;
  const sockets = new Set<Socket>();
  let closeNext = false;

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (closeNext) {
          closeNext = false;
          req.socket.destroy();
          return;
        }
        // Later requests answer sooner: the pool must still match answers to requests in order.
        const delay = req.url === '/slow' ? 30 : 0;
        setTimeout(() => {
          const text = JSON.stringify({ url: req.url, method: req.method, body });
          // Content-Length, as fastify sends it (the pool reads no chunked answers).
          res.writeHead(req.url === '/missing' ? 404 : 200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          });
          res.end(text);
        }, delay);
      });
    });
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('pipelines many requests over one connection and hands each answer to its own tag, in order', async () => {
    const h = new Collect();
    const pool = new PipelinePool([{ host: '127.0.0.1', port }], 1, h);
    const before = sockets.size;
    pool.send(1, get('/slow'), 0);
    for (let i = 2; i <= 50; i++) pool.send(i, put(`/p${i}`, `{"n":${i},"pad":"${'x'.repeat(i)}"}`), 0);
    pool.send(51, get('/missing'), 0);
    pool.flush();
    await eventually(() => h.answers.length === 51, { what: '51 answers' });
    assert.deepEqual(
      h.answers.map((a) => a.tag),
      Array.from({ length: 51 }, (_, i) => i + 1),
    );
    assert.equal(JSON.parse(h.answers[0]!.body).url, '/slow');
    const tenth = JSON.parse(h.answers[9]!.body) as { url: string; method: string; body: string };
    assert.deepEqual([tenth.url, tenth.method, JSON.parse(tenth.body).n], ['/p10', 'PUT', 10]);
    assert.equal(h.answers[50]!.status, 404);
    assert.equal(sockets.size - before, 1, 'one connection');
    assert.deepEqual(h.failures, []);
    pool.close();
  });

  it('resends once on a fresh connection what a closed connection left unanswered', async () => {
    const h = new Collect();
    const pool = new PipelinePool([{ host: '127.0.0.1', port }], 1, h);
    closeNext = true;
    pool.send(7, get('/a'), 0);
    pool.flush();
    await eventually(
      () => {
        pool.flush();
        return h.answers.length === 1;
      },
      { what: 'the resent request answered' },
    );
    assert.equal(h.answers[0]!.tag, 7);
    assert.deepEqual(h.failures, []);
    pool.close();
  });

  it('reports a request whose resend fails too', async () => {
    const h = new Collect();
    // Nothing listens on this port once the probe server is closed.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const dead = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const pool = new PipelinePool([{ host: '127.0.0.1', port: dead }], 1, h);
    pool.send(9, get('/x'), 0);
    pool.flush();
    await eventually(
      () => {
        pool.flush();
        return h.failures.length === 1;
      },
      { what: 'the failure reported' },
    );
    assert.deepEqual(h.failures, [{ tag: 9, reason: 'ConnectionLost' }]);
    pool.close();
  });
});

describe('contentLength', () => {
  const head = (h: string): Buffer => Buffer.from(`HTTP/1.1 200 OK\r\n${h}\r\n\r\n`);
  const of = (h: string): number => {
    const b = head(h);
    return contentLength(b, 0, b.indexOf('\r\n\r\n'));
  };

  it('reads the length whatever the header name case, and 0 without one; -1 when chunked', () => {
    assert.equal(of('content-type: application/json\r\ncontent-length: 1234'), 1234);
    assert.equal(of('Content-Length:\t77\r\nX-Other-Length: 5'), 77);
    assert.equal(of('X-Other-Length: 5'), 0);
    assert.equal(of('Transfer-Encoding: chunked'), -1);
  });
});

describe('PipelinePool spreading', () => {
  it('fills one connection up to its depth before using the next', async () => {
    const conns: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const text = '{}';
        res.writeHead(200, { 'content-length': text.length });
        res.end(text);
      });
    });
    server.on('connection', (s) => conns.push(s.remotePort ?? 0));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const h = new Collect();
    const pool = new PipelinePool([{ host: '127.0.0.1', port }], 4, h);
    try {
      for (let i = 0; i < 10; i++) pool.send(i, get('/few'), 0);
      pool.flush();
      await eventually(() => h.answers.length === 10, { what: '10 answers' });
      assert.equal(conns.length, 1, 'ten requests ride one connection');
      for (let i = 0; i < 100; i++) pool.send(100 + i, get('/many'), 0);
      pool.flush();
      await eventually(() => h.answers.length === 110, { what: '110 answers' });
      assert.equal(conns.length, 2, 'a hundred at once open a second');
    } finally {
      pool.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
