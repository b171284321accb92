// Risk: documentation a reader cannot follow: a link to a file or a section
// that is not there, or a rule stated by pointing at a document or a tracker
// entry outside the repository instead of in its own words.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
const tracked = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .stdout.split('\n')
  .filter(Boolean)
  .filter((f) => existsSync(path.join(ROOT, f)));
const markdown = tracked.filter((f) => f.endsWith('.md'));

/** GitHub's anchor of a heading: lowercased, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (file: string) => new Set([...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

test('every relative link of the Markdown files reaches a file, and a section of it that exists', () => {
  expect(markdown.length).toBeGreaterThan(20);
  const broken: string[] = [];
  for (const file of markdown) {
    const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [pathPart, anchor] = target!.split('#');
      const resolved = pathPart ? path.normalize(path.join(path.dirname(file), pathPart)) : file;
      if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${target} (no ${resolved})`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${target} (no section #${anchor})`);
    }
  }
  expect(broken).toEqual([]);
});

// What citing an outside document or a tracker entry looks like.
const OUTSIDE = [
  /service-interface/i,
  /interface document/i,
  /\bthe interface\b(?! pg-cursor)/i,
  /\(interface: /i,
  /\(interface\)/i,
  /\binterface's\b/i,
  // "...as the\n// interface says": a comment line that opens on the word.
  /^\s*(\/\/\/?|\*|--)\s*interface\b/i,
  /\bissue #?\d+/i,
  /(^|[\s(,;])#\d{1,4}\b(?![0-9a-f])/,
  /\.\.\/shared|\/work\/shared/,
];
// The migrations up to this one may already be applied somewhere: Prisma keeps
// each applied migration's checksum (`_prisma_migrations.checksum`) and reports
// an edited one as modified after it was applied, so their SQL stays as it was
// written. Later migrations' SQL is read like any file. (The schema snapshots
// beside each migration are copies of prisma/schema.prisma, which is read.)
const LAST_MIGRATION_AS_WRITTEN = '20261126234830_payout_lifecycle';
const historicalMigration = (file: string) => {
  const folder = /^prisma\/migrations\/([^/]+)\//.exec(file)?.[1];
  return folder !== undefined && folder <= LAST_MIGRATION_AS_WRITTEN;
};
// Generated records left as they were written: the lockfile, the built API
// reference, generated clients and the API document.
const LEFT_AS_WRITTEN = [/^package-lock\.json$/, /^docs\/api\//, /\/generated\//, /^packages\/sdk\/openapi\.json$/];

test('no document or comment states a rule by citing an outside document or a tracker entry', () => {
  const text = tracked.filter(
    (f) => /\.(md|ts|tsx|mjs|js|cjs|ya?ml|prisma|json|sql)$/.test(f) && !LEFT_AS_WRITTEN.some((p) => p.test(f)) && !historicalMigration(f),
  );
  expect(text.filter((f) => f.endsWith('.sql')).length).toBeGreaterThan(0);
  const found: string[] = [];
  for (const file of text) {
    if (file === 'packages/repository/test/docs-wording.test.ts') continue;
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (OUTSIDE.some((p) => p.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  expect(found).toEqual([]);
});
