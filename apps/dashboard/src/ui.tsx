import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { ExportPath, ExportQuery } from './api';
import { formatAmount } from './money';
import { useSession } from './session';
import { useMyRoleState } from './queries';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  ref?: Ref<HTMLButtonElement>;
  /** A network action is running: the button is disabled and says so. */
  busy?: boolean;
  busyLabel?: string;
  variant?: 'primary' | 'secondary' | 'danger';
}

export function Button({ busy = false, busyLabel, variant = 'secondary', children, disabled, className, type = 'button', ...rest }: ButtonProps) {
  return (
    <button {...rest} type={type} className={`button button-${variant} ${className ?? ''}`} disabled={disabled || busy} aria-busy={busy || undefined}>
      {busy ? (
        <>
          <span className="spinner" aria-hidden="true" />
          {busyLabel ?? 'Working…'}
        </>
      ) : (
        children
      )}
    </button>
  );
}

/** An error of the API, with its message. */
export function ErrorNote({ error, prefix }: { error: unknown; prefix?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="note note-error" role="alert">
      {prefix ? `${prefix}: ` : ''}
      {message}
    </p>
  );
}

function Loading({ label }: { label: string }) {
  return (
    <p className="note note-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="note note-empty">{children}</p>;
}

/** Where a member (who reads only, useReadOnly) would find a write form: one line saying who may do it. */
export function OwnersAndAdminsOnly({ children }: { children: ReactNode }) {
  const { role, error } = useMyRoleState();
  // The team list could not be read: the changes stay hidden (the role is not known), and the page says why.
  if (role === null && error) return <ErrorNote error={error} prefix="Your role could not be read, so no change is offered here; reload to try again" />;
  // Said to members only: while the role is still loading, neither the note nor the change is shown.
  if (role !== 'member') return null;
  return <p className="note note-info">{children}</p>;
}

/** Copies `value` to the clipboard, or selects it for a manual copy where the browser refuses. */
export function CopyButton({ value, label = 'Copy', fallbackSelect }: { value: string; label?: string; fallbackSelect?: () => void }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <>
      <Button
        onClick={() =>
          void navigator.clipboard.writeText(value).then(
            () => setState('copied'),
            () => {
              fallbackSelect?.();
              setState('failed');
            },
          )
        }
      >
        {state === 'copied' ? 'Copied' : label}
      </Button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Copy it by hand: the text is selected' : ''}
      </span>
    </>
  );
}

/** A secret the API returns once: shown with a copy button until the user says it is stored; `also`, the same secret in another form. */
export function SecretOnce({
  label,
  value,
  also,
  children,
  onDone,
}: {
  label: string;
  value: string;
  also?: { label: string; value: string; copyLabel: string };
  children?: ReactNode;
  onDone: () => void;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const alsoInput = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <div className="secret" role="region" aria-label={label}>
      <label htmlFor={id}>{label}</label>
      <p className="hint">Store it now: it is shown this once and cannot be read again.</p>
      <div className="secret-row">
        <input id={id} ref={input} className="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} data-secret />
        <CopyButton value={value} fallbackSelect={() => input.current?.select()} />
      </div>
      {also && (
        <>
          <label htmlFor={`${id}-also`}>{also.label}</label>
          <div className="secret-row">
            <input id={`${id}-also`} ref={alsoInput} className="mono" readOnly value={also.value} onFocus={(e) => e.currentTarget.select()} data-secret />
            <CopyButton value={also.value} label={also.copyLabel} fallbackSelect={() => alsoInput.current?.select()} />
          </div>
        </>
      )}
      {children}
      <Button onClick={onDone}>I have stored it</Button>
    </div>
  );
}

/** A destructive action asks once more, inline (no browser dialog). */
export function ConfirmButton({
  label,
  confirmLabel,
  busy,
  busyLabel,
  onConfirm,
}: {
  label: string;
  confirmLabel: string;
  busy?: boolean;
  busyLabel?: string;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking && !busy)
    return (
      <Button variant="danger" onClick={() => setAsking(true)}>
        {label}
      </Button>
    );
  return (
    <span className="confirm">
      <Button
        ref={confirm}
        variant="danger"
        busy={busy}
        busyLabel={busyLabel}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </Button>
      {!busy && <Button onClick={() => setAsking(false)}>Cancel</Button>}
    </span>
  );
}

/** A timestamp of the API, in the reader's locale, with the exact value on hover. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={value}>
      {Number.isNaN(date.getTime()) ? value : date.toLocaleString()}
    </time>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A page opened from a link or a button: its heading takes the focus, so keyboard and screen
  // reader users start there. On a fresh load (nothing focused) the focus stays at the top,
  // where the first Tab reaches the skip link.
  useEffect(() => {
    const from = document.activeElement;
    if (from && from !== document.body) heading.current?.focus();
  }, []);
  return (
    <div className="page-header">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </div>
  );
}

/** A read's three states before its data: loading, failed (with the API's message), empty. */
export function QueryResult<T>({
  query,
  loading,
  failed,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined };
  loading: string;
  failed: string;
  /** Shown instead of children for an empty list. */
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isError && query.data === undefined) return <ErrorNote error={query.error} prefix={failed} />;
  if (query.isPending || query.data === undefined) return <Loading label={loading} />;
  // A refresh that failed keeps what was loaded before on screen, the reason above it.
  const refreshFailed = query.isError ? <ErrorNote error={query.error} prefix={`${failed} again (this is what was loaded before)`} /> : null;
  if (empty !== undefined && Array.isArray(query.data) && query.data.length === 0)
    return (
      <>
        {refreshFailed}
        <Empty>{empty}</Empty>
      </>
    );
  return (
    <>
      {refreshFailed}
      {children(query.data)}
    </>
  );
}

/** A table in a frame that scrolls sideways on its own; at phone width each row is a card (label each cell with data-label). */
export function Table({
  columns,
  caption,
  className,
  stale = false,
  children,
}: {
  columns: string[];
  caption?: string;
  className?: string;
  /** The rows of the previous page or filters, shown dimmed while the new ones load. */
  stale?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={`stack ${className ?? ''} ${stale ? 'stale' : ''}`}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={column === 'Amount' ? 'num' : undefined}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** How long the old key or secret keeps working after a roll. */
export function GraceSelect({
  id,
  label,
  choices,
  value,
  onChange,
}: {
  id: string;
  label: string;
  choices: { seconds: number; label: string }[];
  value: number;
  onChange: (seconds: number) => void;
}) {
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {choices.map((c) => (
          <option key={c.seconds} value={c.seconds}>
            {c.label}
          </option>
        ))}
      </select>
    </>
  );
}

/**
 * An amount (the API's decimal string) in `currency`: for people (₦1,500.00,
 * the exact string on hover) in lists and cards, or `exact` (1500.000000 NGN)
 * in detail views and confirmations (src/money.ts).
 */
export function Amount({ value, currency, exact = false }: { value: string; currency: string; exact?: boolean }) {
  if (exact) return <span className="amount">{formatAmount(value, currency, 'exact')}</span>;
  return (
    <span className="amount" title={formatAmount(value, currency, 'exact')}>
      {formatAmount(value, currency)}
    </span>
  );
}

/** Newer/Older buttons of a cursor-paged list (the cursors of the pages before are kept by the page). */
export function Pager({ page, onNewer, onOlder, loadingOlder }: { page: number; onNewer?: () => void; onOlder?: () => void; loadingOlder: boolean }) {
  return (
    <nav className="pager" aria-label="Pages">
      <Button disabled={!onNewer} onClick={onNewer}>
        Newer
      </Button>
      <span className="muted small">Page {page}</span>
      <Button disabled={!onOlder} busy={loadingOlder} busyLabel="Loading…" onClick={onOlder}>
        Older
      </Button>
    </nav>
  );
}

/** A datetime-local or date input's value (the reader's local time) as ISO 8601 in UTC; '' when empty or invalid. */
export function fromLocalInput(value: string): string {
  if (!value) return '';
  const date = new Date(value.length === 10 ? `${value}T00:00` : value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** The day after a date input's value (`to` is exclusive: "until 3 May" keeps all of 3 May); '' when empty or invalid. */
export function dayAfter(value: string): string {
  if (!value) return '';
  const date = new Date(`${value}T00:00`);
  date.setDate(date.getDate() + 1);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** Saves a file the service answered (through an object URL, which the page drops once the download started). */
function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "Download CSV" of an export route (`path` with the page's filters, `query`), saved under the name the service gives; `scope` says what it holds. */
export function DownloadCsv<P extends ExportPath>({ path, query, scope }: { path: P; query: ExportQuery<P>; scope: string }) {
  const { download } = useSession();
  const exportCsv = useMutation({
    mutationFn: async () => {
      const { blob, filename } = await download(path, query);
      saveBlob(blob, filename);
      return filename;
    },
  });
  return (
    <>
      <div className="button-row export-row">
        <Button busy={exportCsv.isPending} busyLabel="Preparing the CSV…" onClick={() => exportCsv.mutate()}>
          Download CSV
        </Button>
        <span className="muted small">{scope}</span>
      </div>
      {exportCsv.data && !exportCsv.isPending && (
        <p className="note note-ok" role="status">
          Downloaded {exportCsv.data}
        </p>
      )}
      <ErrorNote error={exportCsv.error} prefix="The CSV was not downloaded" />
    </>
  );
}

/** `value` if it is one of `choices` (a filter read from the address or a select), else '' (any). */
export function oneOf<T extends string>(value: string | null | undefined, choices: readonly T[]): T | '' {
  return choices.find((c) => c === value) ?? '';
}

/** A filter's label and its select, "Any" first (the empty value); a choice is a value or a value with its label. */
export function FilterSelect<T extends string>({
  id,
  label,
  value,
  onChange,
  choices,
  anyLabel = 'Any',
}: {
  id: string;
  label: string;
  value: T | '';
  onChange: (value: T | '') => void;
  choices: readonly (T | { value: T; label: string })[];
  anyLabel?: string;
}) {
  return (
    <span className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) =>
          onChange(
            oneOf(
              e.target.value,
              choices.map((c) => (typeof c === 'string' ? c : c.value)),
            ),
          )
        }
      >
        <option value="">{anyLabel}</option>
        {choices.map((c) => {
          const { value: v, label: l } = typeof c === 'string' ? { value: c, label: c } : c;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
    </span>
  );
}

/** A filter's label and its input (a date, a time, a search text). */
export function FilterInput({
  id,
  label,
  value,
  onChange,
  ...input
}: { id: string; label: string; value: string; onChange: (value: string) => void } & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>) {
  return (
    <span className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </span>
  );
}

/** How many rows a page of a list shows. */
export function RowsSelect({ id, value, onChange, sizes }: { id: string; value: number; onChange: (value: number) => void; sizes: readonly number[] }) {
  return (
    <span className="field">
      <label htmlFor={id}>Rows</label>
      <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {sizes.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </span>
  );
}

/** Every field of a record as the API gives it, label above value; an empty value shows as a dash. */
export function DetailList({ fields }: { fields: readonly (readonly [string, string | number | null])[] }) {
  return (
    <dl className="detail">
      {fields.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd className="mono small url">{value === null || value === '' ? '—' : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A list's first cell: when, and the record's reference below it. */
export function WhenCell({ label, at, reference }: { label: string; at: string; reference?: string | null }) {
  return (
    <td data-label={label}>
      <Time value={at} />
      {reference && <div className="muted mono small url">{reference}</div>}
    </td>
  );
}
