import type { Style } from './colour.js';

/** A table cell: plain text, or text with a colour applied after the width is measured. */
export type Cell = string | { text: string; style?: Style | undefined };

/** Space between columns, as kubectl's tabwriter padding. */
export const COLUMN_PADDING = 3;

export function cellText(cell: Cell): string {
  const text = typeof cell === 'string' ? cell : cell.text;
  return text === '' ? '<none>' : text;
}

/** A styled cell when colour is on, the bare text otherwise. */
export function styled(text: string, style: Style | undefined, colour: boolean): Cell {
  return colour && style ? { text, style } : text;
}

/**
 * kubectl's table look: no borders, UPPER-CASE headers, left-aligned, 3 spaces between columns, `<none>`
 * for empty cells. Widths are remembered across calls and only ever grow (kubectl's tabwriter
 * RememberWidths), so `-w` rows printed one by one stay aligned with the header printed once.
 */
export class TablePrinter {
  readonly #headers: string[];
  readonly #noHeaders: boolean;
  readonly #indent: string;
  #widths: number[];
  #headerPrinted = false;

  /**
   * `reserve`: per column, a sample of the widest value expected later (e.g. `MODIFIED`), so rows printed
   * one at a time under -w rarely have to widen a column and step out of line with the header.
   */
  constructor(
    headers: string[],
    options: { noHeaders?: boolean; indent?: string; reserve?: Array<string | undefined> } = {},
  ) {
    this.#headers = headers;
    this.#noHeaders = options.noHeaders ?? false;
    this.#indent = options.indent ?? '';
    this.#widths = headers.map((_, i) => {
      const sample = options.reserve?.[i];
      return sample === undefined ? 0 : sample.length + COLUMN_PADDING;
    });
  }

  /** Formats a batch of rows (the header before the first batch), newline-terminated; '' for no rows. */
  format(rows: Cell[][]): string {
    const printHeader = !this.#headerPrinted && !this.#noHeaders;
    const all: Cell[][] = printHeader ? [this.#headers, ...rows] : rows;
    if (all.length === 0) return '';
    this.#headerPrinted = true;
    for (const row of all) {
      row.forEach((cell, i) => {
        this.#widths[i] = Math.max(this.#widths[i] ?? 0, cellText(cell).length + COLUMN_PADDING);
      });
    }
    return all.map((row) => this.#line(row)).join('');
  }

  #line(row: Cell[]): string {
    let line = this.#indent;
    row.forEach((cell, i) => {
      const text = cellText(cell);
      const shown = typeof cell !== 'string' && cell.style ? cell.style(text) : text;
      // The last column is not padded, so lines carry no trailing blanks.
      const pad = i === row.length - 1 ? 0 : (this.#widths[i] ?? 0) - text.length;
      line += shown + ' '.repeat(Math.max(0, pad));
    });
    return `${line}\n`;
  }
}
