import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeError, isConnectionError } from '../../src/cli/error-message.js';
import { isNetworkErrorCode } from '../../src/client/network-errors.js';
import { ForbiddenError, ServiceUnavailableError } from '../../src/core/errors.js';

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

describe('sheepctl connection errors', () => {
  it('recognise every socket-level code of the client, however deep in the causes', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNRESET', 'EPIPE']) {
      assert.equal(isNetworkErrorCode(code), true, code);
      const wrapped = new Error('fetch failed', { cause: new Error('outer', { cause: socketError(code) }) });
      assert.equal(isConnectionError(wrapped), true, code);
    }
  });

  it('count the client wrapping of an unreachable server, and nothing else', () => {
    const unreachable = new ServiceUnavailableError('cannot reach the shepherd API', { cause: socketError('X') });
    assert.equal(isConnectionError(unreachable), true);
    assert.equal(isConnectionError(new ServiceUnavailableError('the store is closed')), false);
    assert.equal(isConnectionError(socketError('EACCES')), false);
    assert.equal(isConnectionError(new ForbiddenError('no')), false);
    assert.equal(isNetworkErrorCode('constructor'), false);
  });

  it('tell the user where the server should be', () => {
    const message = describeError(socketError('ECONNREFUSED'), 'http://127.0.0.1:9876');
    assert.match(message, /^cannot connect to the shepherd API at http:\/\/127\.0\.0\.1:9876 \(connect ECONNREFUSED\)/);
  });
});
