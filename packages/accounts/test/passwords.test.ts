import { passwordProblem } from '../src/passwords';

test.each([
  ['', /at least 12 characters/],
  ['elevenchars', /at least 12 characters/],
  ['x'.repeat(201), /at most 200 characters/],
  // On the shipped list of common passwords (any case), or one of them with digits or symbols around it.
  ['qwerty123456', /common/],
  ['QWERTY123456', /common/],
  ['1q2w3e4r5t6y', /common/],
  ['password123456', /common/],
  ['Sunshine2024!!', /common/],
  ['!!iloveyou!!1', /common/],
  ['aaaaaaaaaaaa', /common/],
])('%j is refused', (password, problem) => {
  expect(passwordProblem(password)).toMatch(problem);
});

test.each(['correct horse battery staple', 'Tr0ub4dor&3-plus-more', 'twelve chars', 'ab'.repeat(100)])('%j is accepted', (password) => {
  expect(passwordProblem(password)).toBeNull();
});
