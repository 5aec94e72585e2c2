import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AnyObject, Resource } from '../../core/kinds.js';
import { applyPatch, diffObjects } from './change-log-patch.js';
import { RecentObjects } from './recent-objects.js';
import type { ChangeRow, ChangeType, Statements } from './statements.js';

/*
 * The change log's storage format (schema v2). One row per commit, a *segment*, holding the commit's changes at
 * consecutive revisions from the row's first revision, compressed together (raw deflate against a fixed
 * dictionary of typical shepherd objects). Each change is stored either
 *   full:  the object as written, or
 *   delta: the revision of an earlier FULL record of the same object (its base) and the fields that differ from it.
 * A lease renewal differs from the lease's last full record only in renewTime, so it takes a few bytes instead of
 * the ~450 of a row holding the whole object with its index entries; that is what lets a burst of a million
 * renewals stay inside the retained history and still fit in a few tens of MB.
 *
 * Bases are always full records (so decoding a delta reads one other record, never a chain) and are at most
 * DELTA_WINDOW revisions older than the delta, so compaction stays simple: it may delete every segment that ends
 * DELTA_WINDOW revisions before the compacted revision, and no surviving delta loses its base.
 *
 * The first byte of a segment names its format. A published format, its dictionary included, must never change:
 * segments written with it stay readable as long as they are kept.
 */

/** How far back (in revisions) a delta's base may be; compaction physically keeps this much more than it promises. */
export const DELTA_WINDOW = 100_000;

const FORMAT_DEFLATE_DICT_V1 = 1;

const DICTIONARY_V1 = Buffer.from(
  [
    'F0l{"apiVersion":"coordination/v1","kind":"Lease","metadata":{"name":"node-1","uid":"8c6f1b1e-3f2a-4d5b-9c1e-2a7b4c9d0e1f","resourceVersion":"1","creationTimestamp":"2026-01-01T00:00:00.000Z","namespace":"node-lease"},"spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,"acquireTime":"2026-01-01T00:00:00.000000Z","renewTime":"2026-01-01T00:00:00.000000Z","leaseTransitions":0}}',
    'F1n{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","uid":"5d2e9a40-7b3c-4e1f-8a6d-0c9b8e7f6a5d","resourceVersion":"2","creationTimestamp":"2026-01-01T00:00:00.000Z","labels":{"topology.kubernetes.io/zone":"zone-a","kubernetes.io/hostname":"node-1"},"annotations":{}},"spec":{"unschedulable":false,"taints":[{"key":"node.kubernetes.io/unreachable","effect":"NoExecute","timeAdded":"2026-01-01T00:00:00.000Z"},{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]},"status":{"conditions":[{"type":"Ready","status":"True","reason":"AgentReady","message":"shepherd agent is posting ready status","lastHeartbeatTime":"2026-01-01T00:00:00.000Z","lastTransitionTime":"2026-01-01T00:00:00.000Z"},{"type":"MemoryPressure","status":"False","reason":"AgentHasSufficientMemory","message":"shepherd agent has sufficient memory available","lastHeartbeatTime":"2026-01-01T00:00:00.000Z","lastTransitionTime":"2026-01-01T00:00:00.000Z"},{"type":"DiskPressure","status":"False","reason":"AgentHasNoDiskPressure","message":"shepherd agent has no disk pressure","lastHeartbeatTime":"2026-01-01T00:00:00.000Z","lastTransitionTime":"2026-01-01T00:00:00.000Z"},{"type":"Ready","status":"Unknown","reason":"NodeStatusUnknown","message":"Node agent stopped posting node status."}],"nodeInfo":{"agentVersion":"0.1.0","hostname":"node-1","os":"linux","arch":"amd64"},"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"node-1"}]}}',
    'F0e{"apiVersion":"v1","kind":"Event","metadata":{"name":"node-1.NodeNotReady.0123456789abcdef","uid":"1f0e9d8c-7b6a-4594-8372-61504f3e2d1c","resourceVersion":"3","creationTimestamp":"2026-01-01T00:00:00.000Z","namespace":"default"},"type":"Normal","reason":"RegisteredNode","message":"Node node-1 event: Registered Node node-1 in Controller","involvedObject":{"kind":"Node","name":"node-1","uid":"5d2e9a40-7b3c-4e1f-8a6d-0c9b8e7f6a5d"},"source":{"component":"node-controller"},"count":1,"firstTimestamp":"2026-01-01T00:00:00.000Z","lastTimestamp":"2026-01-01T00:00:00.000Z"}',
    'F0z{"apiVersion":"v1","kind":"Zone","metadata":{"name":"zone-a","uid":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","resourceVersion":"4","creationTimestamp":"2026-01-01T00:00:00.000Z","annotations":{}},"status":{"state":"Normal","nodes":1,"notReady":0,"evictionRate":0.1}}',
    'D1l1234567\t[[["spec","renewTime"],"2026-01-01T00:00:00.000000Z"]]',
    'D1n1234567\t[[["status","conditions"],[{"type":"Ready","status":"True","reason":"AgentReady","lastHeartbeatTime":"2026-01-01T00:00:00.000Z"}]]]',
  ].join('\n'),
);

const TYPE_CODES: Record<ChangeType, string> = { ADDED: '0', MODIFIED: '1', DELETED: '2' };
const TYPES_BY_CODE = new Map<string, ChangeType>(Object.entries(TYPE_CODES).map(([t, c]) => [c, t as ChangeType]));
// Codes and bits are part of the segment format: a kind's code and bit never change once published.
const KIND_CODES: Record<Resource, string> = {
  nodes: 'n',
  leases: 'l',
  events: 'e',
  zones: 'z',
  pods: 'p',
  deployments: 'd',
  verdicts: 'v',
};
const KINDS_BY_CODE = new Map<string, Resource>(Object.entries(KIND_CODES).map(([k, c]) => [c, k as Resource]));
/** A segment's bit per kind: a watch replay skips segments without its kind, without decompressing them. */
const KIND_BITS: Record<Resource, number> = {
  nodes: 1,
  leases: 2,
  events: 4,
  zones: 8,
  pods: 16,
  deployments: 32,
  verdicts: 64,
};

/** One change as logged: the whole object, or a patch against the full record at `base`. */
export type LogRecord =
  | { kind: Resource; type: ChangeType; json: string }
  | { kind: Resource; type: ChangeType; base: number; patch: string };

export type DecodedRecord = LogRecord & { revision: number };

/** Compresses a commit's changes (consecutive revisions, in order) into one segment value. */
export function encodeSegment(records: readonly LogRecord[]): { data: Buffer; kinds: number } {
  let kinds = 0;
  const lines = records.map((r) => {
    kinds |= KIND_BITS[r.kind];
    const head = TYPE_CODES[r.type] + KIND_CODES[r.kind];
    // JSON text never holds a raw newline (JSON.stringify escapes it), so lines split cleanly.
    return 'json' in r ? `F${head}${r.json}` : `D${head}${r.base}\t${r.patch}`;
  });
  const body = deflateRawSync(lines.join('\n'), { level: 1, dictionary: DICTIONARY_V1 });
  const data = Buffer.allocUnsafe(body.length + 1);
  data[0] = FORMAT_DEFLATE_DICT_V1;
  body.copy(data, 1);
  return { data, kinds };
}

/** The records of the segment whose first revision is `first`; throws on a format this build cannot read. */
export function decodeSegment(data: Uint8Array, first: number): DecodedRecord[] {
  if (data[0] !== FORMAT_DEFLATE_DICT_V1) {
    throw new Error(
      `change-log segment at revision ${first} has format ${String(data[0])}, which this shepherd cannot read`,
    );
  }
  const text = inflateRawSync(data.subarray(1), { dictionary: DICTIONARY_V1 }).toString('utf8');
  return text.split('\n').map((line, i) => {
    const type = TYPES_BY_CODE.get(line[1] ?? '');
    const kind = KINDS_BY_CODE.get(line[2] ?? '');
    const revision = first + i;
    if (type !== undefined && kind !== undefined) {
      if (line[0] === 'F') return { revision, kind, type, json: line.slice(3) };
      const tab = line.indexOf('\t');
      const base = Number(line.slice(3, tab));
      if (line[0] === 'D' && tab > 3 && Number.isSafeInteger(base))
        return { revision, kind, type, base, patch: line.slice(tab + 1) };
    }
    throw new Error(`change-log segment at revision ${first} is damaged (record ${i})`);
  });
}

/** A batch's new full records (null: the object was deleted), applied to DeltaBases once the batch committed. */
export type StagedBases = Map<string, { kind: Resource; key: string; full: FullRecord | null }>;

interface FullRecord {
  revision: number;
  /** The logged text (not a parsed object: a fraction of the memory, and safe from callers changing objects). */
  json: string;
}

/**
 * The writer's memory of each object's newest full record, to log the next change as a delta against it. Bounded
 * by entry count and bytes (oldest written first out); an object it has forgotten simply gets a full record next
 * time.
 * Updates from a commit are staged and only applied once the commit succeeded, so a rolled-back batch leaves no
 * base that the database does not have.
 */
export class DeltaBases {
  readonly #bases: RecentObjects<FullRecord>;
  readonly #window: number;

  /**
   * `limits`: entries and bytes (JSON characters) kept, a bare number being entries only. `window`: how many
   * revisions back a base may be (compaction keeps that much beyond the compacted revision).
   */
  constructor(limits: number | { entries: number; bytes: number }, window = DELTA_WINDOW) {
    const { entries, bytes } = typeof limits === 'number' ? { entries: limits, bytes: 0 } : limits;
    this.#bases = new RecentObjects<FullRecord>(entries, bytes, (full) => full.json.length);
    this.#window = window;
  }

  get size(): number {
    return this.#bases.size;
  }

  /**
   * How to log `object` (already carrying `revision`): as a delta when a recent full record of it exists and the
   * patch is less than half the size of the object, else in full. `staged` holds this batch's own full records.
   */
  record(
    kind: Resource,
    key: string,
    type: ChangeType,
    object: AnyObject,
    json: string,
    revision: number,
    staged: StagedBases,
  ): LogRecord {
    const id = `${kind}\u0000${key}`;
    if (type === 'DELETED') {
      staged.set(id, { kind, key, full: null });
      return { kind, type, json };
    }
    const base = staged.has(id) ? staged.get(id)?.full : this.#bases.get(kind, key);
    if (type === 'MODIFIED' && base && revision - base.revision < this.#window) {
      const patch = diffObjects(JSON.parse(base.json) as AnyObject, object);
      if (patch.length * 2 < json.length) return { kind, type, base: base.revision, patch };
    }
    // The logged text itself: exactly what a reader decodes the base from.
    staged.set(id, { kind, key, full: { revision, json } });
    return { kind, type, json };
  }

  /** Applies a committed batch's staged full records. */
  commit(staged: StagedBases): void {
    for (const { kind, key, full } of staged.values()) {
      if (full === null) this.#bases.delete(kind, key);
      else this.#bases.set(kind, key, full);
    }
  }
}

/** Segments fetched per query while replaying. */
const SEGMENT_PAGE = 64;

/** The base cache of a ChangeLogReader: entries and bytes (JSON characters). */
const READER_BASES = { entries: 5000, bytes: 16 * 1024 * 1024 };

/**
 * Reads logged changes of one kind back as full objects, resolving deltas against their bases. Keeps the JSON of
 * recently used bases (a replay over many renewals of the same leases needs each base once, not per delta),
 * bounded in entries and bytes.
 */
export class ChangeLogReader {
  readonly #stmts: Statements;
  readonly #bases: RecentObjects<string>;

  constructor(stmts: Statements, limits: { entries: number; bytes: number } = READER_BASES) {
    this.#stmts = stmts;
    this.#bases = new RecentObjects<string>(limits.entries, limits.bytes, (json) => json.length);
  }

  /** Changes of `kind` with after < revision <= upTo, oldest first, at most `limit`. Run inside a read transaction. */
  changes(kind: Resource, after: number, upTo: number, limit: number): ChangeRow[] {
    const out: ChangeRow[] = [];
    const decoded = new Map<number, DecodedRecord[]>();
    let from = this.#stmts.segmentStartFor.get(after + 1) ?? 0;
    while (out.length < limit) {
      const segments = this.#stmts.segmentsWithKind.all(from, upTo, KIND_BITS[kind], SEGMENT_PAGE);
      for (const seg of segments) {
        const records = decodeSegment(seg.data, seg.first_revision);
        decoded.set(seg.first_revision, records);
        for (const r of records) {
          if (r.kind !== kind || r.revision <= after || r.revision > upTo) continue;
          out.push({ revision: r.revision, type: r.type, value: this.#json(r, decoded) });
          if (out.length >= limit) return out;
        }
        from = seg.first_revision + 1;
      }
      if (segments.length < SEGMENT_PAGE) break;
    }
    return out;
  }

  #json(r: DecodedRecord, decoded: Map<number, DecodedRecord[]>): string {
    if ('json' in r) return r.json;
    return JSON.stringify(applyPatch(this.#base(r.base, r.revision, decoded), r.patch, r.revision));
  }

  /** The full record at revision `base` (a delta's base is always full), from the cache or its segment. */
  #base(base: number, of: number, decoded: Map<number, DecodedRecord[]>): string {
    const cached = this.#bases.get('', String(base));
    if (cached !== undefined) return cached;
    const first = this.#stmts.segmentStartFor.get(base);
    const rec = first === null || first === undefined ? undefined : this.#segment(first, decoded)?.[base - first];
    if (rec === undefined || !('json' in rec)) {
      throw new Error(
        `change-log delta at revision ${of} lost its base at revision ${base}: the change log is damaged`,
      );
    }
    this.#bases.set('', String(base), rec.json);
    return rec.json;
  }

  /** The decoded records of the segment starting at `first`: decoded once per replay step. */
  #segment(first: number, decoded: Map<number, DecodedRecord[]>): DecodedRecord[] | undefined {
    let records = decoded.get(first);
    if (records === undefined) {
      const row = this.#stmts.segmentAt.get(first);
      if (row === undefined) return undefined;
      records = decodeSegment(row.data, row.first_revision);
      decoded.set(first, records);
    }
    return records;
  }
}
