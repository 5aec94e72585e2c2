import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './cli-context.js';

/** One `-f` source's text and the name messages give it. */
export interface ManifestSource {
  name: string;
  text: string;
}

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

/**
 * The texts of `-f` arguments, in order: `-` is standard input (read once), a directory stands for its `.yaml`,
 * `.yml` and `.json` files in name order (not its subdirectories, as kubectl without -R), anything else is a file.
 */
export async function readManifestSources(paths: string[], stdin: () => Promise<string>): Promise<ManifestSource[]> {
  const out: ManifestSource[] = [];
  let stdinRead = false;
  for (const path of paths) {
    if (path === '-') {
      if (stdinRead) throw new CliError('-f - (standard input) may be given once');
      stdinRead = true;
      out.push({ name: 'stdin', text: await stdin() });
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch (err) {
      throw new CliError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
    if (!isDirectory) {
      out.push({ name: path, text: await readFile(path, 'utf8') });
      continue;
    }
    const names = (await readdir(path)).filter((n) => MANIFEST_EXTENSIONS.some((e) => n.endsWith(e))).sort();
    if (names.length === 0) throw new CliError(`${path} holds no .yaml, .yml or .json file`);
    for (const n of names) out.push({ name: join(path, n), text: await readFile(join(path, n), 'utf8') });
  }
  return out;
}
