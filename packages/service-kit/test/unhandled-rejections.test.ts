// Risk: a library's unhandled lost-connection rejection ending a service
// mid-flight, or a real bug's rejection swallowed and the process going on.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const run = (kind: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/unhandled-rejection.ts'), kind], {
    encoding: 'utf8',
    cwd: path.join(__dirname, '../../..'),
  });

test('a lost connection left unhandled is logged and the process carries on', () => {
  const out = run('lost');
  expect(out.status).toBe(0);
  expect(out.stdout).toContain('carrying on');
  expect(out.stdout).toContain('still alive');
});

test('any other unhandled rejection is logged and ends the process', () => {
  const out = run('bug');
  expect(out.status).toBe(1);
  expect(out.stdout).toContain('unhandled rejection; exiting');
  expect(out.stdout).not.toContain('still alive');
});
