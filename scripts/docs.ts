// `npm run docs`: rewrites the generated tables of docs/api.md (problem codes) and docs/settings.md (settings).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { problemTable, replaceSection, settingsTable } from './docs-tables.ts';

const at = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const update = (file: string, name: string, body: string) =>
  writeFileSync(at(file), replaceSection(readFileSync(at(file), 'utf8'), name, body));
update('docs/api.md', 'problem-codes', problemTable());
update('docs/settings.md', 'settings', settingsTable());
process.stdout.write('docs/api.md and docs/settings.md updated\n');
