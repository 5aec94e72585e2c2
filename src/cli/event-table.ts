import { parseTime } from '../core/clock.js';
import type { Event } from '../core/event.js';
import { age } from './age.js';
import { eventTypeStyle } from './colour.js';
import { styled, type Cell } from './table-printer.js';

export const EVENT_HEADERS = ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'COUNT', 'MESSAGE'];

/** `node/node-1`, kubectl's OBJECT column. */
export function involvedObjectRef(e: Event): string {
  return `${e.involvedObject.kind.toLowerCase()}/${e.involvedObject.name}`;
}

/** Newest first (by lastTimestamp, then name), so `sheepctl events | head -3` shows what just happened. */
export function sortEventsNewestFirst(events: Event[]): Event[] {
  return [...events].sort(
    (a, b) =>
      (parseTime(b.lastTimestamp) || 0) - (parseTime(a.lastTimestamp) || 0) ||
      a.metadata.name.localeCompare(b.metadata.name),
  );
}

export function eventRow(e: Event, now: number, colour: boolean): Cell[] {
  return [
    age(e.lastTimestamp, now),
    styled(e.type, eventTypeStyle(e.type), colour),
    e.reason,
    involvedObjectRef(e),
    String(e.count),
    e.message,
  ];
}
