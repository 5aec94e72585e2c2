/**
 * Which rows of a long table to put in the DOM: those in the viewport plus `overscan` on either side, so that
 * 10,000 nodes cost the same to render as 40. Rows have one fixed height (styles.css `--row-height`).
 */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  total: number,
  overscan = 8,
): { start: number; end: number } {
  if (total === 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const count = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(total - 1, first) - overscan);
  const end = Math.min(total, first + count + overscan);
  return { start, end };
}
