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
  /\bissue #?\d+/i,
  /(^|[\s(,;])#\d{1,4}\b(?![0-9a-f])/,
  /\.\.\/shared|\/work\/shared/,
];
// Generated or historical records left as they were written: the migrations'
// snapshots of the schema, and the lockfile.
const LEFT_AS_WRITTEN = [/^prisma\/migrations\//, /^package-lock\.json$/, /^docs\/api\//, /\/generated\//, /^packages\/sdk\/openapi\.json$/];

test('no document or comment states a rule by citing an outside document or a tracker entry', () => {
  const text = tracked.filter((f) => /\.(md|ts|tsx|mjs|js|cjs|ya?ml|prisma|json)$/.test(f) && !LEFT_AS_WRITTEN.some((p) => p.test(f)));
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
