import { connect, type Socket } from 'node:net';

/**
 * Who hears the answers. One object for every request (the light fleet itself), so a request costs no closure:
 * `tag` says what it was for. `buf` is valid only during the call (it is the socket's read buffer).
 */
export interface PipelineHandler {
  /** The answer's body is `buf[start, end)`. */
  onResponse(tag: number, status: number, buf: Buffer, start: number, end: number, sentAt: number): void;
  /** The request got no answer: its connection failed twice (it is resent once on a fresh connection). */
  onFailure(tag: number, reason: string, sentAt: number): void;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const LENGTH = Buffer.from('ength:');
const CONTENT_L = 'content-l';
const CHUNKED = Buffer.from('hunked');

/** A request that went unanswered on a closed connection, to be sent again. */
interface Pending {
  tag: number;
  text: string;
  sentAt: number;
  attempt: number;
}

/** Content-Length of the head `buf[start, end)`, read off the bytes (no string, no regex); -1 if chunked. */
export function contentLength(buf: Buffer, start: number, end: number): number {
  for (let at = buf.indexOf(LENGTH, start); at >= 0 && at < end; at = buf.indexOf(LENGTH, at + 1)) {
    if (buf.toString('latin1', at - 9, at).toLowerCase() !== CONTENT_L) continue;
    let n = 0;
    let i = at + LENGTH.length;
    while (buf[i] === 0x20 || buf[i] === 0x09) i++;
    for (let c = buf[i] as number; c >= 0x30 && c <= 0x39; c = buf[++i] as number) n = n * 10 + c - 0x30;
    return n;
  }
  const chunked = buf.indexOf(CHUNKED, start);
  return chunked >= 0 && chunked < end ? -1 : 0;
}

/**
 * One keep-alive HTTP/1.1 connection with pipelining: requests are appended to one string and written once per
 * flush (one syscall for a whole tick of renewals), answers are read in order off the same socket. Node's HTTP
 * server accepts pipelined requests and answers them in order (https://nodejs.org/api/http.html#class-httpserver),
 * handling them concurrently, so the server's group commit still sees every request in flight. Speaks only what a
 * shepherd API server answers: Content-Length bodies, no chunked encoding, no 1xx.
 */
export class PipelinedConnection {
  readonly #host: string;
  readonly #port: number;
  readonly #handler: PipelineHandler;
  readonly #resend: (p: Pending) => void;
  #socket: Socket | undefined;
  /** Requests queued since the last flush, and their total length (ASCII: characters = bytes). */
  #out: string[] = [];
  #outBytes = 0;
  // The requests awaiting answers, oldest first from #head: parallel arrays, so a request allocates no record.
  #tags: number[] = [];
  #texts: string[] = [];
  #sentAts: number[] = [];
  #attempts: number[] = [];
  #head = 0;
  #buf: Buffer | undefined;
  readonly #readBuffer = Buffer.allocUnsafe(256 * 1024);
  #closed = false;

  constructor(host: string, port: number, handler: PipelineHandler, resend: (p: Pending) => void) {
    this.#host = host;
    this.#port = port;
    this.#handler = handler;
    this.#resend = resend;
  }

  get inFlight(): number {
    return this.#tags.length - this.#head;
  }

  /** Queues one complete request (head and body); it is written at the next flush. */
  send(tag: number, text: string, sentAt: number, attempt: number): void {
    this.#tags.push(tag);
    this.#texts.push(text);
    this.#sentAts.push(sentAt);
    this.#attempts.push(attempt);
    this.#out.push(text);
    this.#outBytes += text.length;
  }

  /**
   * Writes everything queued in one syscall. Each request string is copied into one Buffer on its own: appending
   * them to one string would build a deep rope that V8 flattens at write time, which profiled as the largest cost.
   */
  flush(): void {
    if (this.#out.length === 0 || this.#closed) return;
    const socket = this.#socket ?? this.#open();
    const buf = Buffer.allocUnsafe(this.#outBytes);
    let at = 0;
    for (const text of this.#out) at += buf.write(text, at, 'latin1');
    this.#out = [];
    this.#outBytes = 0;
    socket.write(buf);
  }

  close(): void {
    this.#closed = true;
    this.#socket?.destroy();
  }

  #open(): Socket {
    // onread: reads land in one buffer per connection, with no stream machinery and no Buffer per read
    // (https://nodejs.org/api/net.html#socketconnectoptions-connectlistener).
    const socket = connect({
      host: this.#host,
      port: this.#port,
      noDelay: true,
      onread: { buffer: this.#readBuffer, callback: (n: number, buf: Uint8Array) => this.#onRead(n, buf) },
    });
    socket.on('error', () => undefined); // 'close' follows and says what was lost
    socket.on('close', () => this.#onClose(socket));
    this.#socket = socket;
    return socket;
  }

  #onClose(socket: Socket): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    this.#buf = undefined;
    const lost: Pending[] = [];
    for (let k = this.#head; k < this.#tags.length; k++) {
      lost.push({
        tag: this.#tags[k] as number,
        text: this.#texts[k] as string,
        sentAt: this.#sentAts[k] as number,
        attempt: this.#attempts[k] as number,
      });
    }
    this.#reset();
    this.#out = [];
    this.#outBytes = 0;
    // A keep-alive connection the server closed while a request was on its way: resend once, elsewhere.
    for (const p of lost) {
      if (p.attempt === 0 && !this.#closed) {
        p.attempt = 1;
        this.#resend(p);
      } else this.#handler.onFailure(p.tag, 'ConnectionLost', p.sentAt);
    }
  }

  #reset(): void {
    this.#tags = [];
    this.#texts = [];
    this.#sentAts = [];
    this.#attempts = [];
    this.#head = 0;
  }

  #onRead(n: number, buf: Uint8Array): boolean {
    this.#onData((buf as Buffer).subarray(0, n));
    return true;
  }

  /** Parses every complete answer in what has arrived; a partial one is copied out of the read buffer to wait. */
  #onData(chunk: Buffer): void {
    let buf = this.#buf === undefined ? chunk : Buffer.concat([this.#buf, chunk]);
    let at = 0;
    for (;;) {
      const end = buf.indexOf(HEADER_END, at);
      if (end < 0) break;
      const length = contentLength(buf, at, end);
      if (length < 0) return this.#protocolError('a chunked answer (light mode reads Content-Length only)');
      const bodyStart = end + 4;
      if (buf.length < bodyStart + length) break;
      const k = this.#head;
      if (k >= this.#tags.length) return this.#protocolError('an answer to no request');
      // "HTTP/1.1 200 ": the status is bytes 9-11.
      const status =
        ((buf[at + 9] as number) - 48) * 100 + ((buf[at + 10] as number) - 48) * 10 + (buf[at + 11] as number) - 48;
      const tag = this.#tags[k] as number;
      const sentAt = this.#sentAts[k] as number;
      this.#texts[k] = '';
      this.#head = k + 1;
      if (this.#head === this.#tags.length) this.#reset();
      this.#handler.onResponse(tag, status, buf, bodyStart, bodyStart + length, sentAt);
      at = bodyStart + length;
    }
    if (at >= buf.length) this.#buf = undefined;
    else {
      if (at > 0) buf = buf.subarray(at);
      // Copy the tail so the (possibly large) chunk it points into can be freed.
      this.#buf = Buffer.from(buf);
    }
  }

  #protocolError(what: string): void {
    this.#socket?.destroy(new Error(`light fleet: the server sent ${what}`));
  }
}

/** Answers outstanding on a connection before the pool opens up the next one. */
const DEPTH = 64;

/** A fixed set of pipelined connections spread over the API addresses (see #pick for which one a request takes). */
export class PipelinePool {
  readonly #conns: PipelinedConnection[] = [];
  #flushQueued = false;

  constructor(addresses: Array<{ host: string; port: number }>, connections: number, handler: PipelineHandler) {
    if (addresses.length === 0) throw new Error('the light fleet needs at least one API address');
    const resend = (p: Pending): void => this.#pick().send(p.tag, p.text, p.sentAt, p.attempt);
    for (let i = 0; i < Math.max(1, connections); i++) {
      const a = addresses[i % addresses.length] as { host: string; port: number };
      this.#conns.push(new PipelinedConnection(a.host, a.port, handler, resend));
    }
  }

  /** Queues a request; it is written by the next flush(), or at the end of this event-loop turn at the latest. */
  send(tag: number, text: string, sentAt: number): void {
    this.#pick().send(tag, text, sentAt, 0);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      setImmediate(this.#flushNow);
    }
  }

  readonly #flushNow = (): void => {
    this.#flushQueued = false;
    this.flush();
  };

  get inFlight(): number {
    let n = 0;
    for (const c of this.#conns) n += c.inFlight;
    return n;
  }

  flush(): void {
    for (const c of this.#conns) c.flush();
  }

  close(): void {
    for (const c of this.#conns) c.close();
  }

  /**
   * The first connection with fewer than DEPTH answers outstanding (the least loaded when all have more): a light
   * load rides one connection, so a tick's requests share one write and their answers arrive in shared reads.
   */
  #pick(): PipelinedConnection {
    let best = this.#conns[0] as PipelinedConnection;
    for (const c of this.#conns) {
      if (c.inFlight < DEPTH) return c;
      if (c.inFlight < best.inFlight) best = c;
    }
    return best;
  }
}
