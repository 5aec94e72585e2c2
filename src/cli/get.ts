import type { ListOptions, ResourceClient } from '../client/api-client.js';
import { watchWithResume } from '../client/watch-resume.js';
import { isReason } from '../core/errors.js';
import type { AnyObject, Resource } from '../core/kinds.js';
import { DEFAULT_NAMESPACE } from '../core/pod.js';
import { CliError, UsageError, type CliDeps } from './cli-context.js';
import {
  encodeObject,
  encodeWatched,
  isTableFormat,
  ListDocumentWriter,
  listObject,
  objectName,
  type OutputFormat,
} from './output.js';
import { resourceClient, viewFor, type ResourceView } from './resource-views.js';
import { singularOf } from './resource-names.js';
import { TablePrinter, type Cell } from './table-printer.js';
import { watchNotices } from './watch-notices.js';

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface GetOptions {
  resource: Resource;
  /** Names to show; none lists every object matching the selectors. */
  names: string[];
  output: OutputFormat;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Events only: keep these types (Normal, Warning). */
  types?: string[] | undefined;
  /** Namespace of pods and deployments (default `default`) or of leases (default `node-lease`). */
  namespace?: string | undefined;
  /** `-A`: pods and deployments of every namespace, with a NAMESPACE column. */
  allNamespaces?: boolean | undefined;
  watch?: boolean | undefined;
  noHeaders?: boolean | undefined;
  /** With -w: an EVENT column (ADDED, MODIFIED, DELETED), or {type, object} documents for json/yaml. */
  outputWatchEvents?: boolean | undefined;
  /** Names the server in reconnect notices. */
  server?: string | undefined;
}

interface Fetched {
  items: AnyObject[];
  resourceVersion: string;
  missing: string[];
}

/** `sheepctl get RESOURCE [NAME...]`: prints, then with -w follows changes until deps.signal aborts. */
export async function runGet(deps: CliDeps, o: GetOptions): Promise<number> {
  const all = o.allNamespaces === true;
  if (all && o.resource !== 'pods' && o.resource !== 'deployments') {
    throw new UsageError(`-A (all namespaces) lists pods and deployments, not ${o.resource}`);
  }
  if (all && o.names.length > 0)
    throw new UsageError('an object cannot be read by name across all namespaces: drop -A');
  const rc = resourceClient(deps.client, o.resource, o.namespace, all);
  const view = viewFor(o.resource, deps, o.output === 'wide', all);
  if (!o.watch && o.names.length === 0 && view.paged) {
    return printPages(deps, o, rc, view, new TablePrinter(view.headers, { noHeaders: o.noHeaders ?? false }));
  }
  const fetched = o.watch || o.names.length === 0 ? await fetchList(deps, rc, o) : await fetchNamed(deps, rc, o.names);
  const items = view.sort(fetched.items.filter((x) => keep(o, x)));
  const withEvents = o.outputWatchEvents === true && o.watch === true;
  const table = new TablePrinter(withEvents ? ['EVENT', ...view.headers] : view.headers, {
    noHeaders: o.noHeaders ?? false,
    ...(o.watch ? { reserve: withEvents ? ['MODIFIED', ...view.watchReserve] : view.watchReserve } : {}),
  });
  await printInitial(deps, o, view, table, items, fetched.resourceVersion);
  for (const name of fetched.missing) deps.err.write(`sheepctl: ${singularOf(o.resource)} "${name}" not found\n`);
  if (!o.watch) return fetched.missing.length > 0 ? 1 : 0;
  await follow(deps, o, rc, view, table, fetched.items, fetched.resourceVersion);
  return 0;
}

/**
 * A list printed a page at a time as the pages arrive, in the server's (name) order. A table takes its column
 * widths from the first page (500 rows) and widens a column only for a wider cell after it, whose line then
 * stands out of line with those before, as kubectl's chunked `get` does; json and yaml write the very document a
 * whole list gives.
 */
async function printPages(
  deps: CliDeps,
  o: GetOptions,
  rc: ResourceClient<AnyObject>,
  view: ResourceView,
  table: TablePrinter,
): Promise<number> {
  const doc = o.output === 'json' || o.output === 'yaml' ? new ListDocumentWriter(o.output, deps.out) : undefined;
  let resourceVersion: string | undefined;
  let printed = 0;
  try {
    for await (const page of rc.listPages({ ...listOptions(o), ...(deps.signal ? { signal: deps.signal } : {}) })) {
      resourceVersion ??= page.metadata.resourceVersion;
      const items = view.sort(page.items.filter((x) => keep(o, x)));
      printed += items.length;
      if (doc) doc.items(items);
      else if (o.output === 'name') deps.out.write(items.map((x) => `${objectName(o.resource, x)}\n`).join(''));
      else if (items.length > 0) deps.out.write(table.format(await view.rows(items)));
    }
  } catch (err) {
    if (!isReason(err, 'Gone')) throw err;
    throw new CliError('the list expired on the server while it was being printed; run the command again', {
      cause: err,
    });
  }
  if (doc) doc.end(resourceVersion ?? '');
  else if (printed === 0) await printNothingFound(deps, o, view);
  return 0;
}

async function printNothingFound(deps: CliDeps, o: GetOptions, view: ResourceView): Promise<void> {
  // kubectl names the namespace it looked in.
  const workload = (o.resource === 'pods' || o.resource === 'deployments') && o.allNamespaces !== true;
  deps.err.write(
    workload ? `No resources found in ${o.namespace ?? DEFAULT_NAMESPACE} namespace.\n` : 'No resources found\n',
  );
  // Who leads (or that the controller is holding back) matters most when nothing is listed yet.
  if (o.output !== 'name') {
    const footer = await view.footer([]);
    if (footer.length > 0) deps.out.write(`${footer.join('\n')}\n`);
  }
}

/**
 * `-w`: one row per change until deps.signal aborts. watchWithResume resumes a closed stream from the last
 * resourceVersion (so a server restart loses nothing) and relists on 410 Gone, yielding what changed in the gap.
 */
async function follow(
  deps: CliDeps,
  o: GetOptions,
  rc: ResourceClient<AnyObject>,
  view: ResourceView,
  table: TablePrinter,
  initial: AnyObject[],
  resourceVersion: string,
): Promise<void> {
  const notices = watchNotices(deps.err, o.server ?? 'the server');
  const changes = watchWithResume(rc, {
    ...listOptions(o),
    resourceVersion,
    known: initial,
    allowWatchBookmarks: true,
    clock: deps.clock,
    log: notices,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  for await (const ev of changes) {
    if (ev.type === 'BOOKMARK') continue;
    notices.reset();
    if (keep(o, ev.object)) deps.out.write(await formatChange(o, view, table, ev.type, ev.object));
  }
}

function listOptions(o: GetOptions): ListOptions {
  const opts: ListOptions = {};
  if (o.labelSelector) opts.labelSelector = o.labelSelector;
  if (o.fieldSelector) opts.fieldSelector = o.fieldSelector;
  return opts;
}

/** Client-side filters: names under -w, and event types (a field selector cannot say "Normal or Warning"). */
function keep(o: GetOptions, obj: AnyObject): boolean {
  if (o.watch && o.names.length > 0 && !o.names.includes(obj.metadata.name)) return false;
  if (o.types && o.types.length > 0 && obj.kind === 'Event' && !o.types.includes(obj.type)) return false;
  return true;
}

async function fetchList(deps: CliDeps, rc: ResourceClient<AnyObject>, o: GetOptions): Promise<Fetched> {
  const list = await rc.list({ ...listOptions(o), ...(deps.signal ? { signal: deps.signal } : {}) });
  return { items: list.items, resourceVersion: list.metadata.resourceVersion, missing: [] };
}

/** kubectl prints the objects it found and an error line for each one it did not (exit code 1). */
async function fetchNamed(deps: CliDeps, rc: ResourceClient<AnyObject>, names: string[]): Promise<Fetched> {
  const items: AnyObject[] = [];
  const missing: string[] = [];
  for (const name of names) {
    try {
      items.push(await rc.get(name, deps.signal ? { signal: deps.signal } : {}));
    } catch (err) {
      if (!isReason(err, 'NotFound')) throw err;
      missing.push(name);
    }
  }
  return { items, resourceVersion: '', missing };
}

async function printInitial(
  deps: CliDeps,
  o: GetOptions,
  view: ResourceView,
  table: TablePrinter,
  items: AnyObject[],
  resourceVersion: string,
): Promise<void> {
  if (o.output === 'json' || o.output === 'yaml') {
    if (o.watch) {
      for (const x of items)
        deps.out.write(encodeWatched(o.output, o.outputWatchEvents ? { type: 'ADDED', object: x } : x));
    } else if (o.names.length === 1 && items.length === 1) {
      deps.out.write(encodeObject(o.output, items[0]));
    } else if (o.names.length === 0 || items.length > 0) {
      deps.out.write(encodeObject(o.output, listObject(items, resourceVersion)));
    }
    return;
  }
  if (items.length === 0) {
    if (!o.watch && o.names.length === 0) await printNothingFound(deps, o, view);
    return;
  }
  if (o.output === 'name') {
    deps.out.write(items.map((x) => `${objectName(o.resource, x)}\n`).join(''));
    return;
  }
  const rows = await view.rows(items);
  deps.out.write(table.format(o.outputWatchEvents && o.watch ? rows.map((r) => ['ADDED', ...r]) : rows));
  if (!o.watch) {
    const footer = await view.footer(items);
    if (footer.length > 0) deps.out.write(`\n${footer.join('\n')}\n`);
  }
}

async function formatChange(
  o: GetOptions,
  view: ResourceView,
  table: TablePrinter,
  type: ChangeType,
  obj: AnyObject,
): Promise<string> {
  if (o.output === 'json' || o.output === 'yaml')
    return encodeWatched(o.output, o.outputWatchEvents ? { type, object: obj } : obj);
  if (o.output === 'name') return `${objectName(o.resource, obj)}\n`;
  if (!isTableFormat(o.output)) throw new CliError(`unsupported output format ${o.output}`);
  const row: Cell[] = await view.rowFor(obj, type === 'DELETED');
  return table.format([o.outputWatchEvents ? [type, ...row] : row]);
}
