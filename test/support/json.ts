/**
 * A parsed JSON response body as tests read it: untyped on purpose, so an assertion can reach into any field and
 * fail with a clear message when the field is missing, instead of every test casting. Only for tests.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type JsonObject = Record<string, any>;
