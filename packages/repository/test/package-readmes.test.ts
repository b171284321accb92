// Risk: a package's README sends a caller to a function or type the package no
// longer exports (renamed, moved, removed), or to a file that is gone, so the
// one page that says what a package is for quietly drifts from its code; or a
// package appears without saying what it owns and what it leaves to others.
//
// Every workspace (the root package.json's "workspaces", so a package added or
// moved is covered without editing this file) has a README.md with the
// sections "Owns", "Does not own" and "Entry points". In "Entry points":
// - a backticked identifier (`createDb`, also written `createDb()` or
//   `Prisma.TransactionClient`, whose first name is checked) must be exported
//   by the package's entry, as the TypeScript compiler reads it (the entry is
//   package.json's "types" or "main"; one pointing into a build, dist/, is read
//   from src/index.ts, the build's source);
// - a backticked path (`src/main.ts`, `bin/cowrie.js`) must exist in the
//   package;
// - anything else in backticks (a command such as `npx cowrie ledger audit`) is
//   prose and is not checked.
// A package with no entry (no "main", "types" or "exports": the dashboard's web
// app, this package) may name only paths and prose there.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '../../..');
const SECTIONS = ['Owns', 'Does not own', 'Entry points'] as const;

interface Workspace {
  dir: string;
  name: string;
  entry: string | undefined;
  /** Its other entries: the subpaths of its "exports" map (`./testing`, the stand-ins tests import). */
  subpathEntries: string[];
}

interface PackageJson {
  name: string;
  main?: string;
  types?: string;
  exports?: unknown;
}

function workspaces(): Workspace[] {
  const patterns = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const dirs = patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    if (!existsSync(path.join(ROOT, parent))) return [];
    return readdirSync(path.join(ROOT, parent)).map((d) => `${parent}/${d}`);
  });
  return dirs
    .filter((dir) => existsSync(path.join(ROOT, dir, 'package.json')))
    .sort()
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as PackageJson;
      return { dir, name: pkg.name, entry: entryOf(dir, pkg), subpathEntries: subpathEntriesOf(dir, pkg) };
    });
}

/** The source files of a package's "exports" subpaths other than `.` (`"./testing": "./testing/index.ts"`). */
function subpathEntriesOf(dir: string, pkg: PackageJson): string[] {
  if (typeof pkg.exports !== 'object' || pkg.exports === null) return [];
  return Object.entries(pkg.exports as Record<string, unknown>)
    .filter(([subpath, target]) => subpath !== '.' && typeof target === 'string' && target.endsWith('.ts'))
    .map(([, target]) => path.join(ROOT, dir, target as string));
}

/** The source file a caller of the package reads: its "types" or "main"; a build's entry is read from src/index.ts. */
function entryOf(dir: string, pkg: PackageJson): string | undefined {
  const declared = pkg.types ?? pkg.main ?? (pkg.exports === undefined ? undefined : 'dist/');
  if (declared === undefined) return undefined;
  const normalised = path.posix.normalize(declared);
  const source = normalised.startsWith('dist/') ? 'src/index.ts' : normalised;
  const file = path.join(ROOT, dir, source);
  if (!existsSync(file)) throw new Error(`${dir}: its package entry ${declared} is read from ${source}, which does not exist`);
  return file;
}

/** The text of each `## ` section of a README, by heading. */
function sectionsOf(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  const headings = [...text.matchAll(/^## (.+)$/gm)];
  headings.forEach((heading, i) => {
    const end = headings[i + 1]?.index ?? text.length;
    sections.set(heading[1]!.trim(), text.slice(heading.index + heading[0].length, end));
  });
  return sections;
}

type Named = { kind: 'export'; name: string; written: string } | { kind: 'path'; path: string } | { kind: 'prose' };

const IDENTIFIER = /^([A-Za-z_$][\w$]*)(?:\.[\w$]+)*(?:\(\))?$/;
const PATH = /^[\w@.-]+(?:\/[\w@.-]*)*\.(?:ts|tsx|mts|mjs|cjs|js|json|css)$|^[\w@.-]+(?:\/[\w@.-]+)*\/$/;

function classify(span: string): Named {
  if (PATH.test(span)) return { kind: 'path', path: span };
  const identifier = IDENTIFIER.exec(span);
  if (identifier) return { kind: 'export', name: identifier[1]!, written: span };
  return { kind: 'prose' };
}

const namedIn = (section: string): Named[] => [...section.matchAll(/`([^`\n]+)`/g)].map((m) => classify(m[1]!.trim()));

const all = workspaces();
const entries = all.flatMap((w) => [...(w.entry === undefined ? [] : [w.entry]), ...w.subpathEntries]);

/** One program for every entry; each module's exports as the checker resolves them (re-exports, `export *`, `export type *`). */
function exportsByEntry(): Map<string, Set<string>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.base.json'),
    {},
    {
      ...ts.sys,
      // Only its compiler options are wanted: the files are the entries, so no directory is listed.
      readDirectory: () => [],
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.base.json could not be read');
  const program = ts.createProgram({ rootNames: entries, options: { ...config.options, noEmit: true, types: [] } });
  const checker = program.getTypeChecker();
  const byEntry = new Map<string, Set<string>>();
  for (const entry of entries) {
    const source = program.getSourceFile(entry);
    if (!source) throw new Error(`${entry} is not in the program`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    byEntry.set(entry, new Set(moduleSymbol ? checker.getExportsOfModule(moduleSymbol).map((s) => s.getName()) : []));
  }
  return byEntry;
}

const exported = exportsByEntry();

test('the workspaces are found, and the exports of their entries are read', () => {
  expect(all.length).toBeGreaterThan(15);
  expect(exported.get(path.join(ROOT, 'packages/db/src/index.ts'))).toEqual(expect.objectContaining({ size: expect.any(Number) }));
  // A module with no exports read would make every name look missing; one with every
  // export read includes a re-export through `export *` and a type.
  const db = exported.get(path.join(ROOT, 'packages/db/src/index.ts'))!;
  expect(db.has('createDb')).toBe(true);
  expect(db.has('DbOrTx')).toBe(true);
  expect(db.has('recordEvent')).toBe(true);
  expect(db.has('noSuchExport')).toBe(false);
});

describe.each(all.map((w) => [w.dir, w] as const))('%s/README.md', (_dir, workspace) => {
  const readmePath = path.join(ROOT, workspace.dir, 'README.md');
  const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
  const sections = sectionsOf(readme);

  test('exists and says what the package owns, what it does not, and its entry points', () => {
    expect({ readme: existsSync(readmePath), missing: SECTIONS.filter((s) => !(sections.get(s) ?? '').trim()) }).toEqual({
      readme: true,
      missing: [],
    });
  });

  test('names in "Entry points" only what the package exports and files it has', () => {
    const named = namedIn(sections.get('Entry points') ?? '');
    const names = named.flatMap((n) => (n.kind === 'export' ? [n] : []));
    const paths = named.flatMap((n) => (n.kind === 'path' ? [n.path] : []));
    // Something is checked: a section of prose alone could drift unseen.
    expect(names.length + paths.length).toBeGreaterThan(0);

    const exports = new Set([workspace.entry, ...workspace.subpathEntries].flatMap((entry) => (entry === undefined ? [] : [...exported.get(entry)!])));
    const notExported = names.filter((n) => !exports.has(n.name)).map((n) => `\`${n.written}\``);
    const missingFiles = paths.filter(
      (p) => !existsSync(path.join(ROOT, workspace.dir, p)) || (p.endsWith('/') && !statSync(path.join(ROOT, workspace.dir, p)).isDirectory()),
    );
    expect({ notExported, missingFiles }).toEqual({ notExported: [], missingFiles: [] });
  });
});
