/**
 * Colour only on a terminal and never under NO_COLOR (https://no-color.org: present and not empty), and
 * only the STATUS / TYPE words, so piped output and `grep` see exactly the text a test asserts.
 * Plain SGR codes: util.styleText on Node 20 checks process.stdout itself, which an injected stream is not.
 */
export type Style = (text: string) => string;

const sgr =
  (open: number): Style =>
  (text) =>
    `\u001b[${open}m${text}\u001b[39m`;

export const green: Style = sgr(32);
export const red: Style = sgr(31);
export const yellow: Style = sgr(33);

export function colourEnabled(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  const noColour = env['NO_COLOR'];
  return stream.isTTY === true && (noColour === undefined || noColour === '');
}

/** Node STATUS: Ready green, NotReady red, Unknown yellow (the `,SchedulingDisabled` suffix shares the colour). */
export function nodeStatusStyle(status: string): Style | undefined {
  if (status.startsWith('NotReady')) return red;
  if (status.startsWith('Ready')) return green;
  if (status.startsWith('Unknown')) return yellow;
  return undefined;
}

/** Event TYPE: Warning yellow; Normal stays plain, as the eye should land on warnings. */
export function eventTypeStyle(type: string): Style | undefined {
  return type === 'Warning' ? yellow : undefined;
}
