import { html } from 'htm/preact';
import type { RefObject, VNode } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { visibleRange } from '../model/virtual-window.js';

/** Must equal styles.css `--row-height`: the window arithmetic assumes every row is this tall. */
export const ROW_HEIGHT = 32;
const HEADER_HEIGHT = 34;

/** Arrow keys, Page Up/Down, Home and End: the row to move to, or undefined for any other key. */
function targetRow(key: string, index: number, total: number, page: number): number | undefined {
  const to = (i: number): number => Math.max(0, Math.min(total - 1, i));
  switch (key) {
    case 'ArrowDown':
      return to(index + 1);
    case 'ArrowUp':
      return to(index - 1);
    case 'PageDown':
      return to(index + page);
    case 'PageUp':
      return to(index - page);
    case 'Home':
      return 0;
    case 'End':
      return to(total - 1);
    default:
      return undefined;
  }
}

export interface TableWindow {
  scroller: RefObject<HTMLDivElement | null>;
  /** The rows to put in the DOM: [start, end) of `total`. */
  start: number;
  end: number;
  onScroll: () => void;
  /** On the tbody: moves focus between rows (their first link) and scrolls to keep it in view. */
  onKeyDown: (e: KeyboardEvent) => void;
}

/**
 * The virtual window of a long table in a scrolling box (model/virtual-window.ts), with keyboard navigation over
 * every row, including those not in the DOM yet.
 */
export function useTableWindow(total: number): TableWindow {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [focusIndex, setFocusIndex] = useState<number | undefined>(undefined);

  useEffect(() => {
    const el = scroller.current;
    if (el === null) return undefined;
    const observer = new ResizeObserver(() => setViewport(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  // A layout effect: focus moves in the same turn as the keypress that asked for it.
  useLayoutEffect(() => {
    if (focusIndex === undefined) return;
    const link = scroller.current?.querySelector<HTMLElement>(`tr[data-index="${focusIndex}"] :is(a, [tabindex="0"])`);
    link?.focus({ preventScroll: true });
  }, [focusIndex, scrollTop]);

  const onKeyDown = (e: KeyboardEvent): void => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('tr[data-index]');
    const el = scroller.current;
    if (tr === null || el === null) return;
    const page = Math.max(1, Math.floor((el.clientHeight - HEADER_HEIGHT) / ROW_HEIGHT) - 1);
    const target = targetRow(e.key, Number(tr.dataset['index']), total, page);
    if (target === undefined) return;
    e.preventDefault();
    const top = target * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT + HEADER_HEIGHT > el.scrollTop + el.clientHeight)
      el.scrollTop = top + ROW_HEIGHT + HEADER_HEIGHT - el.clientHeight;
    setScrollTop(el.scrollTop);
    setFocusIndex(target);
  };
  const { start, end } = visibleRange(Math.max(0, scrollTop - HEADER_HEIGHT), viewport, ROW_HEIGHT, total);
  return { scroller, start, end, onScroll: () => setScrollTop(scroller.current?.scrollTop ?? 0), onKeyDown };
}

/** Stands in for `rows` rows outside the window, so the scroll bar has the whole table's height. */
export function Spacer(props: { rows: number }): VNode | null {
  return props.rows > 0 ? html`<tr aria-hidden="true" style=${{ height: `${props.rows * ROW_HEIGHT}px` }}></tr>` : null;
}
