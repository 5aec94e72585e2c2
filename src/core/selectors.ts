import { BadRequestError } from './errors.js';

/**
 * Label selectors in the Kubernetes syntax: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
 * joined by commas. Field selectors: `path=v`, `path==v`, `path!=v` over dotted object paths.
 */
export type Requirement =
  | { key: string; op: 'eq' | 'neq'; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists' };

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

export function parseLabelSelector(selector: string | undefined): Requirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return splitTopLevel(selector).map((part) => {
    let m = /^([^\s!=,()]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part);
    if (m) {
      const values = (m[3] as string).split(',').map((v) => v.trim());
      return { key: m[1] as string, op: m[2] as 'in' | 'notin', values };
    }
    m = /^([^\s!=,()]+)\s*(==|=|!=)\s*([^\s!=,()]*)$/.exec(part);
    if (m) return { key: m[1] as string, op: m[2] === '!=' ? 'neq' : 'eq', value: m[3] as string };
    m = /^!\s*([^\s!=,()]+)$/.exec(part);
    if (m) return { key: m[1] as string, op: 'notexists' };
    m = /^([^\s!=,()]+)$/.exec(part);
    if (m) return { key: m[1] as string, op: 'exists' };
    throw new BadRequestError(
      `unable to parse requirement "${part}" of label selector "${selector}": use k=v, k!=v, k, !k, k in (a,b) or k notin (a,b)`,
    );
  });
}

export function matchesLabels(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  for (const r of reqs) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const v = has ? (labels as Record<string, string>)[r.key] : undefined;
    switch (r.op) {
      case 'eq':
        if (v !== r.value) return false;
        break;
      case 'neq':
        if (v === r.value) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
    }
  }
  return true;
}

export interface FieldRequirement {
  path: string[];
  op: 'eq' | 'neq';
  value: string;
}

export function parseFieldSelector(selector: string | undefined): FieldRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return selector.split(',').map((part) => {
    const m = /^\s*([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) {
      throw new BadRequestError(
        `unable to parse field selector "${selector}": use path=value or path!=value, comma separated`,
      );
    }
    return { path: (m[1] as string).split('.'), op: m[2] === '!=' ? 'neq' : 'eq', value: m[3] as string };
  });
}

export function matchesFields(reqs: FieldRequirement[], obj: unknown): boolean {
  for (const r of reqs) {
    let cur: unknown = obj;
    for (const p of r.path)
      cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[p] : undefined;
    const s = cur === undefined || cur === null ? '' : String(cur);
    if (r.op === 'eq' ? s !== r.value : s === r.value) return false;
  }
  return true;
}
