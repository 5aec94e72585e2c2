/**
 * The HTTP sender the client tests run over: undici by default; the `*-node-sender.test.ts` twins set
 * SHEPHERD_TEST_SENDER=node and import the same tests, so both senders pass the same suite.
 */
export function testSender(): { sender?: 'node' | 'undici' } {
  const s = process.env.SHEPHERD_TEST_SENDER;
  return s === 'node' || s === 'undici' ? { sender: s } : {};
}
