/** Who a request comes from, once its bearer token is known (Kubernetes' user.Info). */
export interface UserInfo {
  user: string;
  uid: string;
  groups: string[];
}

export interface TokenEntry extends UserInfo {
  token: string;
}

/**
 * Splits one CSV record as Go's encoding/csv does for Kubernetes' token file: commas separate fields, a field
 * that starts with `"` (after leading blanks) runs to the closing `"` (`""` is a literal quote). Undefined when the quotes are unbalanced.
 */
function splitCsv(line: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    // Go's csv.Reader with TrimLeadingSpace, as Kubernetes reads the file.
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return undefined;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i];
        i++;
      }
      while (line[i] === ' ' || line[i] === '\t') i++;
      if (i < line.length && line[i] !== ',') return undefined;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      field = line.slice(i, end);
      if (field.includes('"')) return undefined;
      i = end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/**
 * Parses Kubernetes' static token file (`--token-auth-file`): `token,user,uid[,"group1,group2"]` a line, blank
 * lines and `#` comments ignored. A malformed line throws naming its number only: the line holds a secret, so
 * neither it nor any token is ever part of a message.
 */
export function parseTokenFile(text: string, source = 'the token file'): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const where = `${source} line ${n + 1}`;
    const fields = splitCsv(line);
    if (fields === undefined)
      throw new Error(`${where} is malformed (unbalanced quotes): write token,user,uid,"group1,group2"`);
    if (fields.length < 3 || fields.length > 4) {
      throw new Error(`${where} has ${fields.length} fields, not 3 or 4: write token,user,uid,"group1,group2"`);
    }
    const [token, user, uid, groups] = fields.map((f) => f.trim()) as [string, string, string, string | undefined];
    if (token === '') throw new Error(`${where} has an empty token: every line needs a token as its first field`);
    if (/\s/.test(token)) throw new Error(`${where} has a token with whitespace in it: a bearer token is one word`);
    if (user === '') throw new Error(`${where} has an empty user name: the second field names the user`);
    if (seen.has(token))
      throw new Error(`${where} repeats a token of an earlier line: give each identity its own token`);
    seen.add(token);
    const groupList = (groups ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter((g) => g !== '');
    entries.push({ token, user, uid, groups: groupList });
  }
  return entries;
}
