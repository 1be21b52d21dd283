import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

export type Doc = Record<string, any>;

/** The non-empty documents of a multi-document YAML file. */
export function readYamlDocs(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map(d => d.toJS() as Doc | null)
    .filter((d): d is Doc => Boolean(d));
}
