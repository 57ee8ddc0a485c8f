// `npm run tour`: runs the README's first example and tour on the embedded defaults and rewrites both
// README sections from the real answers (`--check` only compares, exit 1 when the README is stale).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { firstExample, replaceSection, runTour, sectionOf, stable, tourTable } from './tour.ts';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const { first, rows } = await runTour();
const table = tourTable(rows);
const example = firstExample(first);
const doc = readFileSync(README, 'utf8');
if (process.argv.includes('--check')) {
  const fresh =
    stable(sectionOf(doc, 'first-example') ?? '') === stable(example) && sectionOf(doc, 'tour') === table;
  process.stdout.write(fresh ? 'README tour is up to date\n' : 'README tour is stale: run npm run tour\n');
  process.exitCode = fresh ? 0 : 1;
} else {
  writeFileSync(README, replaceSection(replaceSection(doc, 'first-example', example), 'tour', table));
  process.stdout.write(`${example}\n\n${table}\n`);
}
