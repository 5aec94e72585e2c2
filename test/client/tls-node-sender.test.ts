// The tests of tls.test.ts over the node:http sender (src/client/node-http-sender.ts), which the agent uses.
process.env.SHEPHERD_TEST_SENDER = 'node';
await import('./tls.test.js');
