/** What tests use of the accounts package beyond its entry: the password hashing cost (password-cost.ts). */
export { setPasswordHashCost } from '../src/password-cost';
