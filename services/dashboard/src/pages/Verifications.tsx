import { useState } from 'react';
import type { Schemas } from '../api';
import { useApiQuery, usePagedList } from '../queries';
import { Button, DetailList, FilterSelect, PageHeader, Pager, QueryResult, Table, Time } from '../ui';

type Verification = Schemas['Verification'];
const STATUSES: Schemas['VerificationStatus'][] = ['pending', 'verified', 'failed', 'expired'];
const CHANNELS: Schemas['VerificationChannel'][] = ['sms', 'voice', 'email', 'whatsapp'];

/** One verification as GET /verifications/:reference gives it: the destination masked, never a code. */
function VerificationDetail({ reference, onClose }: { reference: string; onClose: () => void }) {
  const detail = useApiQuery<Verification>(`/verifications/${encodeURIComponent(reference)}`);
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
  const [status, setStatus] = useState('');
  const [channel, setChannel] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const { page, pager, rows } = usePagedList<Verification>(
    '/verifications',
    new URLSearchParams({ limit: '25', ...(status && { status }), ...(channel && { channel }) }),
  );
  return (
    <>
      <PageHeader title="Verifications">
        <p className="lead">One-time codes sent to your customers&apos; phones and inboxes. Destinations are masked; codes are never shown.</p>
      </PageHeader>
      <div className="filters card" role="group" aria-label="Filters">
        <FilterSelect id="ver-status" label="Status" value={status} onChange={setStatus} choices={STATUSES} />
        <FilterSelect id="ver-channel" label="Channel" value={channel} onChange={setChannel} choices={CHANNELS} />
      </div>
      {open && <VerificationDetail key={open} reference={open} onClose={() => setOpen(null)} />}
      <QueryResult
        query={rows}
        loading="Loading verifications…"
        failed="Verifications could not be loaded"
        empty={status || channel ? 'No verifications match these filters.' : 'No verifications yet. POST /v1/verifications sends a code.'}
      >
        {(items) => (
          <Table columns={['Created', 'Channel', 'Destination', 'Status', 'Attempts', 'Detail']} caption="Verifications" stale={page.isPlaceholderData}>
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
