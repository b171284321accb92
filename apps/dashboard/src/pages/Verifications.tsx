import { useAddress } from '../address';
import type { Schemas } from '../api';
import { useApiMutation, useApiQuery, useMyRole, usePagedList } from '../queries';
import { Button, ConfirmButton, DetailList, ErrorNote, FilterSelect, oneOf, PageHeader, Pager, QueryResult, Table, Time } from '../ui';

type Guard = Schemas['VerificationGuard'];
type GuardedPrefix = Guard['prefixes'][number];

const percent = (value: number | null) => (value === null ? '—' : `${Math.round(value * 100)}%`);

/** A prefix the guard is blocking, with the owner's clear. */
function BlockedPrefix({ p, canClear }: { p: GuardedPrefix; canClear: boolean }) {
  const clear = useApiMutation('post', '/verification-guard/clear', () => ({ body: { prefix: p.prefix } }), ['/verification-guard']);
  return (
    <tr>
      <td className="mono" data-label="Prefix">
        {p.prefix}
      </td>
      <td data-label="Started">{p.starts}</td>
      <td data-label="Verified">{p.verified}</td>
      <td data-label="Conversion">{percent(p.conversion)}</td>
      <td data-label="Lifts in">{p.retry_after_seconds === null ? '—' : `${Math.ceil(p.retry_after_seconds / 60)} min`}</td>
      <td data-label="Actions">
        {canClear ? (
          <ConfirmButton label="Clear" confirmLabel={`Clear ${p.prefix}`} busy={clear.isPending} busyLabel="Clearing…" onConfirm={() => clear.mutate()} />
        ) : (
          <span className="muted small">owners can clear</span>
        )}
        {clear.isError && <ErrorNote error={clear.error} prefix="Not cleared" />}
      </td>
    </tr>
  );
}

/** Conversion by channel over the last hour, and the destination prefixes the fraud guard is blocking (or would block, in monitor mode). */
function ConversionAndGuard() {
  const guard = useApiQuery('/verification-guard');
  const isOwner = useMyRole() === 'owner';
  return (
    <section className="card" aria-labelledby="conversion-title">
      <h2 id="conversion-title">Conversion in the last hour</h2>
      <QueryResult query={guard} loading="Loading conversion…" failed="Conversion could not be loaded">
        {(g) => {
          const blocking = g.prefixes.filter((p) => p.blocking);
          return (
            <>
              <Table columns={['Channel', 'Started', 'Verified', 'Conversion']} caption="Conversion by channel">
                {g.conversion_by_channel.map((c) => (
                  <tr key={c.channel}>
                    <td data-label="Channel">{c.channel}</td>
                    <td data-label="Started">{c.started}</td>
                    <td data-label="Verified">{c.verified}</td>
                    <td data-label="Conversion">{percent(c.conversion)}</td>
                  </tr>
                ))}
              </Table>
              <h3>Fraud guard</h3>
              <p className="muted small">
                Mode <strong>{g.mode}</strong>: an sms or voice prefix with at least {g.min_starts} starts in the hour and under {percent(g.min_conversion)}{' '}
                verified is {g.mode === 'block' ? 'refused new codes' : g.mode === 'monitor' ? 'reported (monitor mode refuses nothing)' : 'not judged (off)'}.
              </p>
              {blocking.length === 0 ? (
                <p>No prefix is {g.mode === 'block' ? 'blocked' : 'over the threshold'}.</p>
              ) : (
                <Table
                  columns={['Prefix', 'Started', 'Verified', 'Conversion', 'Lifts in', 'Actions']}
                  caption={g.mode === 'block' ? 'Blocked prefixes' : 'Prefixes over the threshold'}
                >
                  {blocking.map((p) => (
                    <BlockedPrefix key={p.prefix} p={p} canClear={isOwner} />
                  ))}
                </Table>
              )}
            </>
          );
        }}
      </QueryResult>
    </section>
  );
}
const STATUSES: Schemas['VerificationStatus'][] = ['pending', 'verified', 'failed', 'expired'];
const CHANNELS: Schemas['VerificationChannel'][] = ['sms', 'voice', 'email', 'whatsapp'];

/** One verification as GET /verifications/:reference gives it: the destination masked, never a code. */
function VerificationDetail({ reference, onClose }: { reference: string; onClose: () => void }) {
  const detail = useApiQuery('/verifications/{reference}', { params: { path: { reference } } });
  return (
    <section className="card" aria-labelledby="verification-title">
      <div className="section-head">
        <h2 id="verification-title" tabIndex={-1} ref={(el) => el?.focus()}>
          Verification <span className="mono small">{reference}</span>
        </h2>
        <Button onClick={onClose}>Close</Button>
      </div>
      <QueryResult query={detail} loading="Loading the verification…" failed="The verification could not be loaded">
        {(v) => (
          <DetailList
            fields={[
              ['Channel', v.channel],
              ['Destination (masked)', v.destination],
              ['Status', v.status],
              ['Attempts', `${v.attempts} of ${v.max_attempts}`],
              ['Provider', v.provider],
              ['Delivery report', v.delivery_status ? `${v.delivery_status}${v.delivery_reported_at ? ` at ${v.delivery_reported_at}` : ''}` : 'none yet'],
              ['Created', v.created_at],
              ['Expires', v.expires_at ?? '—'],
              ['Verified', v.verified_at ?? '—'],
            ]}
          />
        )}
      </QueryResult>
    </section>
  );
}

/** The workspace's contact verifications, newest first, by status and channel; each one's detail. */
export function Verifications() {
  // The filters, the page and the open verification are the address's (a link opens the same view).
  const address = useAddress();
  const status = oneOf(address.get('status'), STATUSES);
  const channel = oneOf(address.get('channel'), CHANNELS);
  const open = address.get('open');
  const setOpen = (reference: string | null) => address.set({ open: reference }, { paging: true });
  const { page, pager, rows } = usePagedList('/verifications', { limit: 25, ...(status && { status }), ...(channel && { channel }) });
  return (
    <>
      <PageHeader title="Verifications">
        <p className="lead">
          One-time codes sent to your customers&apos; phones (sms, voice, WhatsApp) and inboxes. Destinations are masked; codes are never shown.
        </p>
      </PageHeader>
      <ConversionAndGuard />
      <div className="filters card" role="group" aria-label="Filters">
        <FilterSelect id="ver-status" label="Status" value={status} onChange={(v) => address.set({ status: v })} choices={STATUSES} />
        <FilterSelect id="ver-channel" label="Channel" value={channel} onChange={(v) => address.set({ channel: v })} choices={CHANNELS} />
      </div>
      {open && <VerificationDetail key={open} reference={open} onClose={() => setOpen(null)} />}
      <QueryResult
        query={rows}
        loading="Loading verifications…"
        failed="Verifications could not be loaded"
        empty={status || channel ? 'No verifications match these filters.' : 'No verifications yet. POST /v1/verifications sends a code.'}
      >
        {(items) => (
          <Table
            columns={['Created', 'Channel', 'Destination', 'Status', 'Delivery', 'Attempts', 'Detail']}
            caption="Verifications"
            stale={page.isPlaceholderData}
          >
            {items.map((v) => (
              <tr key={v.reference}>
                <td data-label="Created">
                  <Time value={v.created_at} />
                </td>
                <td data-label="Channel">{v.channel}</td>
                <td className="mono" data-label="Destination">
                  {v.destination}
                </td>
                <td data-label="Status">
                  <span className={`badge badge-${v.status}`}>{v.status}</span>
                </td>
                <td data-label="Delivery">{v.delivery_status ?? <span className="muted">—</span>}</td>
                <td data-label="Attempts">
                  {v.attempts} of {v.max_attempts}
                </td>
                <td data-label="Detail">
                  <Button onClick={() => setOpen(v.reference)}>
                    Details <span className="visually-hidden">of verification {v.reference}</span>
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryResult>
      <Pager {...pager} />
    </>
  );
}
