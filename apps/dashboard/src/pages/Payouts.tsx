import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'wouter';
import { newIdempotencyKey, type PathOf, type Schemas } from '../api';
import { useApiMutation, useApiQuery, useReadOnly } from '../queries';
import { Amount, Button, ConfirmButton, ErrorNote, OwnersAndAdminsOnly, PageHeader, QueryResult, Table, Time } from '../ui';

type Transaction = Schemas['Transaction'];
type PayoutRequest = Schemas['PayoutRequest'];
/** A payout's answer: the transaction, or (above the approval threshold, 202) the payout request it became. */
type PayoutAnswer = Transaction | PayoutRequest;
const isRequest = (answer: PayoutAnswer): answer is PayoutRequest => 'expires_at' in answer;
type Beneficiary = Schemas['Beneficiary'];
/** Reads and writes that move money make the balances and the ledger stale. */
const MONEY_READS: PathOf<'get'>[] = ['/balances', '/transactions', '/payout-requests'];

/** The currencies the workspace holds (its wallets), NGN first when there are none yet. */
function useCurrencies() {
  const balances = useApiQuery('/balances');
  const currencies = (balances.data ?? []).map((b) => b.currency);
  return { currencies: currencies.length ? currencies : ['NGN'], balances };
}

function BankSelect({ id, value, onChange }: { id: string; value: string; onChange: (code: string) => void }) {
  const banks = useApiQuery('/banks');
  return (
    <>
      <label htmlFor={id}>Bank</label>
      <select id={id} required value={value} onChange={(e) => onChange(e.target.value)} disabled={!banks.data}>
        <option value="">{banks.isPending ? 'Loading banks…' : 'Choose a bank'}</option>
        {(banks.data ?? []).map((b) => (
          <option key={b.bankCode} value={b.bankCode}>
            {b.bankName}
          </option>
        ))}
      </select>
      <ErrorNote error={banks.error} prefix="Banks could not be loaded" />
    </>
  );
}

/** The amount as the user types it: sent to the API as that decimal string, never through a float. */
function AmountField({ id, value, onChange, currency }: { id: string; value: string; onChange: (v: string) => void; currency: string }) {
  return (
    <>
      <label htmlFor={id}>{currency ? `Amount (${currency})` : 'Amount'}</label>
      <input
        id={id}
        required
        inputMode="decimal"
        autoComplete="off"
        pattern="\d+(\.\d+)?"
        title="A decimal amount, such as 1500 or 1500.50"
        value={value}
        onChange={(e) => onChange(e.target.value.trim())}
      />
    </>
  );
}

/** A payout's answer: the transaction as the API gave it, with a way to the ledger; or the request it became, with a way to the approvals. */
function Sent({ t }: { t: PayoutAnswer }) {
  if (isRequest(t)) {
    return (
      <p className="note note-info" role="status">
        <span>
          Not sent yet: <Amount value={t.amount} currency={t.currency} exact /> is above the approval threshold, so this payout waits for another owner or admin
          to approve it (until <Time value={t.expires_at} />
          ). Nothing is held from the balance meanwhile. <Link href="/payout-requests">See it in Approvals</Link>
        </span>
      </p>
    );
  }
  return (
    <p className={t.status === 'failed' ? 'note note-error' : 'note note-ok'} role="status">
      <span>
        {t.status === 'failed' ? 'The rail refused the payout' : t.status === 'completed' ? 'Sent' : 'Sent; the rail is still processing it'}:{' '}
        <Amount value={t.amount} currency={t.currency} exact /> to {t.counterpartyName ?? t.counterpartyAccount} (reference{' '}
        <span className="mono">{t.reference}</span>, status {t.status}). <Link href="/transactions">See it in Transactions</Link>
      </span>
    </p>
  );
}

/**
 * A payout's last step: what will be sent, said in full, and one button that
 * sends it. The Idempotency-Key is made once, when this step opens: a retried
 * or double click sends the same request, which the API answers once.
 */
function Confirm({ summary, send, busy, onBack }: { summary: ReactNode; send: (idempotencyKey: string) => void; busy: boolean; onBack: () => void }) {
  const [key] = useState(newIdempotencyKey);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <div className="confirm-payout" role="region" aria-label="Confirm the payout">
      <p>{summary}</p>
      <div className="button-row">
        <Button ref={button} variant="primary" busy={busy} busyLabel="Sending…" onClick={() => send(key)}>
          Confirm and send
        </Button>
        {!busy && <Button onClick={onBack}>Change</Button>}
      </div>
    </div>
  );
}

function TransferForm() {
  const id = useId();
  const { currencies } = useCurrencies();
  const [currency, setCurrency] = useState('');
  const [bankCode, setBankCode] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const [amount, setAmount] = useState('');
  const [narration, setNarration] = useState('');
  const cur = currency || currencies[0]!;
  const resolve = useApiMutation('post', '/banks/resolve', () => ({
    body: { account_number: accountNumber, bank_code: bankCode, currency: cur },
  }));
  const send = useApiMutation(
    'post',
    '/transfers',
    ({ key, account }: { key: string; account: Schemas['ResolvedBankAccount'] }) => ({
      params: { header: { 'Idempotency-Key': key } },
      body: {
        currency: cur,
        amount,
        account_number: account.accountNumber,
        bank_code: account.bankCode,
        account_name: account.accountName,
        bank_name: account.bankName,
        ...(narration.trim() && { narration: narration.trim() }),
      },
    }),
    MONEY_READS,
  );
  const resolved = resolve.data && !resolve.isPending ? resolve.data : null;
  const edit = (apply: () => void) => {
    apply();
    resolve.reset();
    send.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.reset();
    resolve.mutate();
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Send a transfer</h2>
      <form className="form" onSubmit={submit} aria-label="Send a transfer">
        <label htmlFor={`${id}-currency`}>Currency</label>
        <select id={`${id}-currency`} value={cur} onChange={(e) => edit(() => setCurrency(e.target.value))}>
          {currencies.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <BankSelect id={`${id}-bank`} value={bankCode} onChange={(code) => edit(() => setBankCode(code))} />
        <label htmlFor={`${id}-account`}>Account number</label>
        <input
          id={`${id}-account`}
          required
          inputMode="numeric"
          autoComplete="off"
          value={accountNumber}
          onChange={(e) => edit(() => setAccountNumber(e.target.value.trim()))}
        />
        <AmountField id={`${id}-amount`} value={amount} onChange={(v) => edit(() => setAmount(v))} currency={cur} />
        <label htmlFor={`${id}-narration`}>Narration (optional)</label>
        <input id={`${id}-narration`} maxLength={255} value={narration} onChange={(e) => edit(() => setNarration(e.target.value))} />
        {!resolved && (
          <div className="button-row">
            <Button type="submit" variant="primary" busy={resolve.isPending} busyLabel="Checking the account…">
              Check the account
            </Button>
          </div>
        )}
        <ErrorNote error={resolve.error} prefix="The account could not be checked" />
      </form>
      {resolved && !send.data && (
        <Confirm
          summary={
            <>
              Send <Amount value={amount} currency={cur} exact /> to <strong className="account-name">{resolved.accountName}</strong>,{' '}
              <span className="mono">{resolved.accountNumber}</span> at {resolved.bankName}?
            </>
          }
          busy={send.isPending}
          send={(key) => send.mutate({ key, account: resolved })}
          onBack={() => resolve.reset()}
        />
      )}
      {send.data && (
        <>
          <Sent t={send.data} />
          <Button
            onClick={() =>
              edit(() => {
                setAccountNumber('');
                setAmount('');
                setNarration('');
              })
            }
          >
            Send another transfer
          </Button>
        </>
      )}
      <ErrorNote error={send.error} prefix="Not sent" />
    </section>
  );
}

function WithdrawalForm({ beneficiaries }: { beneficiaries: Beneficiary[] }) {
  const id = useId();
  const [beneficiaryId, setBeneficiaryId] = useState('');
  const [amount, setAmount] = useState('');
  const [confirming, setConfirming] = useState(false);
  const beneficiary = beneficiaries.find((b) => String(b.id) === beneficiaryId);
  const send = useApiMutation(
    'post',
    '/withdrawals',
    ({ key, to }: { key: string; to: Beneficiary }) => ({
      params: { header: { 'Idempotency-Key': key } },
      body: { currency: to.currency, amount, beneficiary_id: to.id },
    }),
    MONEY_READS,
  );
  const edit = (apply: () => void) => {
    apply();
    setConfirming(false);
    send.reset();
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Withdraw to a beneficiary</h2>
      {beneficiaries.length === 0 ? (
        <p className="note note-empty">No beneficiaries yet: add one below to withdraw to it.</p>
      ) : (
        <form
          className="form"
          aria-label="Withdraw to a beneficiary"
          onSubmit={(e) => {
            e.preventDefault();
            send.reset();
            setConfirming(true);
          }}
        >
          <label htmlFor={`${id}-beneficiary`}>Beneficiary</label>
          <select id={`${id}-beneficiary`} required value={beneficiaryId} onChange={(e) => edit(() => setBeneficiaryId(e.target.value))}>
            <option value="">Choose a beneficiary</option>
            {beneficiaries.map((b) => (
              <option key={b.id} value={String(b.id)}>
                {b.name} · {b.account_number} · {b.bank_name} ({b.currency})
              </option>
            ))}
          </select>
          <AmountField id={`${id}-amount`} value={amount} onChange={(v) => edit(() => setAmount(v))} currency={beneficiary?.currency ?? ''} />
          {!confirming && (
            <div className="button-row">
              <Button type="submit" variant="primary">
                Continue
              </Button>
            </div>
          )}
        </form>
      )}
      {confirming && beneficiary && !send.data && (
        <Confirm
          summary={
            <>
              Withdraw <Amount value={amount} currency={beneficiary.currency} exact /> to <strong>{beneficiary.name}</strong>,{' '}
              <span className="mono">{beneficiary.account_number}</span> at {beneficiary.bank_name}?
            </>
          }
          busy={send.isPending}
          send={(key) => send.mutate({ key, to: beneficiary })}
          onBack={() => setConfirming(false)}
        />
      )}
      {send.data && <Sent t={send.data} />}
      <ErrorNote error={send.error} prefix="Not sent" />
    </section>
  );
}

function AddBeneficiary({ onDone }: { onDone: () => void }) {
  const id = useId();
  const { currencies } = useCurrencies();
  const [currency, setCurrency] = useState('');
  const [bankCode, setBankCode] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const cur = currency || currencies[0]!;
  const add = useApiMutation('post', '/beneficiaries', () => ({ body: { account_number: accountNumber, bank_code: bankCode, currency: cur } }), [
    '/beneficiaries',
  ]);
  return (
    <form
      className="card form"
      aria-label="Add a beneficiary"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate(undefined, { onSuccess: onDone });
      }}
    >
      <h3>Add a beneficiary</h3>
      <label htmlFor={`${id}-currency`}>Currency</label>
      <select id={`${id}-currency`} value={cur} onChange={(e) => setCurrency(e.target.value)}>
        {currencies.map((c) => (
          <option key={c}>{c}</option>
        ))}
      </select>
      <BankSelect id={`${id}-bank`} value={bankCode} onChange={setBankCode} />
      <label htmlFor={`${id}-account`}>Account number</label>
      <input
        id={`${id}-account`}
        required
        autoFocus
        inputMode="numeric"
        autoComplete="off"
        value={accountNumber}
        onChange={(e) => setAccountNumber(e.target.value.trim())}
      />
      <p className="hint">The account holder&apos;s name is looked up at the bank.</p>
      <ErrorNote error={add.error} prefix="Not added" />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={add.isPending} busyLabel="Adding…">
          Add beneficiary
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}

/** A beneficiary and, unless the user only reads, its Remove. */
function BeneficiaryRow({ b, readOnly }: { b: Beneficiary; readOnly: boolean }) {
  const remove = useApiMutation('delete', '/beneficiaries/{id}', () => ({ params: { path: { id: String(b.id) } } }), ['/beneficiaries']);
  return (
    <tr>
      <td data-label="Name">{b.name}</td>
      <td className="mono" data-label="Account">
        {b.account_number}
      </td>
      <td data-label="Bank">{b.bank_name}</td>
      <td data-label="Currency">{b.currency}</td>
      <td data-label="Added">
        <Time value={b.created_at} />
      </td>
      {!readOnly && (
        <td data-label="Actions">
          <div>
            <ConfirmButton label="Remove" confirmLabel={`Remove ${b.name}`} busy={remove.isPending} busyLabel="Removing…" onConfirm={() => remove.mutate()} />
            <ErrorNote error={remove.error} prefix="Not removed" />
          </div>
        </td>
      )}
    </tr>
  );
}

/**
 * Money out: a transfer to any account (resolved before it is confirmed), a
 * withdrawal to a saved beneficiary, the beneficiaries. A member reads the
 * beneficiaries only.
 */
export function Payouts() {
  const beneficiaries = useApiQuery('/beneficiaries');
  const readOnly = useReadOnly();
  const [adding, setAdding] = useState(false);
  const active = (beneficiaries.data ?? []).filter((b) => b.active);
  return (
    <>
      <PageHeader title="Payouts">
        <p className="lead">Send money from this workspace&apos;s balance. Every payout asks you to confirm the account holder&apos;s name first.</p>
      </PageHeader>
      {readOnly ? (
        <OwnersAndAdminsOnly>Only owners and admins send payouts and add or remove beneficiaries.</OwnersAndAdminsOnly>
      ) : (
        <div className="payout-forms">
          <TransferForm />
          <WithdrawalForm beneficiaries={active} />
        </div>
      )}
      <section aria-labelledby="beneficiaries-title">
        <div className="section-head">
          <h2 id="beneficiaries-title">Beneficiaries</h2>
          {!adding && !readOnly && (
            <Button variant="primary" onClick={() => setAdding(true)}>
              Add a beneficiary
            </Button>
          )}
        </div>
        {adding && !readOnly && <AddBeneficiary onDone={() => setAdding(false)} />}
        <QueryResult
          query={{ ...beneficiaries, data: beneficiaries.data ? active : undefined }}
          loading="Loading beneficiaries…"
          failed="Beneficiaries could not be loaded"
          empty={readOnly ? 'No beneficiaries yet.' : 'No beneficiaries yet. Add the accounts you pay often.'}
        >
          {(rows) => (
            <Table columns={['Name', 'Account', 'Bank', 'Currency', 'Added', ...(readOnly ? [] : ['Actions'])]} caption="Beneficiaries">
              {rows.map((b) => (
                <BeneficiaryRow key={b.id} b={b} readOnly={readOnly} />
              ))}
            </Table>
          )}
        </QueryResult>
      </section>
    </>
  );
}
