// What must hold after the soak, whatever was killed: the ledger whole, every
// payout settled as the rail says, every event delivered, every verification
// in a state the API allows, every answer one it allows.
import type { PrismaClient } from '@cowrie/db';
import { Decimal } from '@cowrie/core';
import { auditLedger } from '@cowrie/ledger';
import type { PaystackStandIn } from '@cowrie/paystack/testing';
import type { FlutterwaveStandIn } from '@cowrie/rails/testing';
import { payoutReferenceOf, railReferenceOf } from '@cowrie/payouts';
import type { HttpReceiver } from '@cowrie/testing';
import { codeMatches, VERIFICATION_STATUSES } from '@cowrie/verification';
import type { TermiiRequest } from '@cowrie/verification/testing';
import type { AnswerLog, InboundSent, PingAnswer } from './driver';

export interface SoakViolation {
  rule: string;
  detail: string;
}

/** What one payout rail did, read from its stand-in: each transfer's state by the reference it was sent under, and the sends that reached it. */
export interface RailTruth {
  id: string;
  /** success (paid), failed, reversed (paid, then returned) or pending. */
  transfers: Map<string, 'success' | 'failed' | 'reversed' | 'pending'>;
  sends: Map<string, number>;
}

export function paystackTruth(standIn: PaystackStandIn): RailTruth {
  const transfers: RailTruth['transfers'] = new Map();
  for (const [reference, t] of standIn.transfers) {
    const status = String(t.status);
    transfers.set(reference, status === 'success' || status === 'failed' || status === 'reversed' ? status : 'pending');
  }
  const sends = new Map<string, number>();
  for (const r of standIn.requests)
    if (r.method === 'POST' && r.path === '/transfer' && r.body?.reference) sends.set(r.body.reference, (sends.get(r.body.reference) ?? 0) + 1);
  return { id: 'paystack', transfers, sends };
}

export function flutterwaveTruth(standIn: FlutterwaveStandIn): RailTruth {
  const states = { SUCCESSFUL: 'success', FAILED: 'failed', REVERSED: 'reversed' } as const;
  const transfers: RailTruth['transfers'] = new Map();
  for (const [reference, t] of standIn.transfers) transfers.set(reference, states[String(t.status) as keyof typeof states] ?? 'pending');
  const sends = new Map<string, number>();
  for (const r of standIn.requests)
    if (r.method === 'POST' && r.path === '/v3/transfers' && r.body?.reference) sends.set(r.body.reference, (sends.get(r.body.reference) ?? 0) + 1);
  return { id: 'flutterwave', transfers, sends };
}

export interface SoakFigures {
  payouts: Record<string, number>;
  railSends: number;
  /** Payouts that moved to another rail (more than one attempt on record). */
  failedOver: number;
  /** Completed payouts per rail that paid them. */
  paidBy: Record<string, number>;
  events: number;
  deliveries: number;
  verifications: Record<string, number>;
  inboundCredits: number;
  inboundHeld: number;
  pings: number;
  smsSent: number;
}

export async function checkSoak(opts: {
  db: PrismaClient;
  /** Every payout rail's truth (one with a single rail). */
  rails: RailTruth[];
  /** The receivers behind the stable endpoints. */
  receivers: HttpReceiver[];
  /** The receiver behind the endpoints the driver created, changed and deleted. */
  churnReceiver: HttpReceiver;
  stableEndpointIds: number[];
  answers: AnswerLog;
  /** Codes the sandbox "sent" per verification reference (email). */
  codesSent: (reference: string) => Promise<number>;
  /** What reached a phone through the SMS stand-in (one phone per start). */
  smsDelivered: TermiiRequest[];
  inbound: InboundSent[];
  pings: PingAnswer[];
}): Promise<{ violations: SoakViolation[]; figures: SoakFigures }> {
  const violations: SoakViolation[] = [];
  const violate = (rule: string, detail: string) => violations.push({ rule, detail });

  // The ledger auditor, and no payout left processing.
  const audit = await auditLedger(opts.db);
  for (const v of audit.violations) violate(`ledger: ${v.rule}`, JSON.stringify(v));
  const payouts = await opts.db.ledgerTransaction.findMany({
    where: { direction: 'out' },
    select: { id: true, reference: true, status: true, amount: true, fees: true, provider: true, metadata: true },
  });
  const payoutCounts: Record<string, number> = {};
  for (const p of payouts) payoutCounts[p.status] = (payoutCounts[p.status] ?? 0) + 1;
  for (const p of payouts.filter((p) => p.status === 'processing')) violate('payout left processing', `${p.reference} (id ${p.id})`);

  // The rails' truth: what each rail holds, by the payout its reference belongs to
  // (`snd_…` on a payout's first rail, `snd_…-<n>` on its n-th).
  const atRails = new Map<string, Array<{ rail: string; reference: string; status: string }>>();
  for (const rail of opts.rails)
    for (const [reference, status] of rail.transfers) {
      const payout = payoutReferenceOf(reference);
      atRails.set(payout, [...(atRails.get(payout) ?? []), { rail: rail.id, reference, status }]);
    }
  // A reversal's money comes back exactly once: one reversal credit of the payout's amount and fees.
  const reversalCredits = await opts.db.ledgerTransaction.findMany({
    where: { type: 'credit', category: 'reversal' },
    select: { idempotencyKey: true, amount: true },
  });
  const creditsOf = new Map<string, string[]>();
  for (const c of reversalCredits) creditsOf.set(c.idempotencyKey, [...(creditsOf.get(c.idempotencyKey) ?? []), c.amount.toFixed(6)]);
  const paidBy: Record<string, number> = {};
  for (const p of payouts) {
    const held = atRails.get(p.reference) ?? [];
    // Money left on a rail: paid, or paid and returned.
    const paid = held.filter((t) => t.status === 'success' || t.status === 'reversed');
    if (paid.length > 1) violate('paid on two rails', `${p.reference}: ${paid.map((t) => `${t.rail} ${t.reference} ${t.status}`).join(', ')}`);
    // The payout's own rail, under the reference it was sent with there.
    const truth = held.find((t) => t.rail === p.provider && t.reference === railReferenceOf(p))?.status;
    if (p.status === 'completed') {
      if (paid.length !== 1 || paid[0]!.rail !== p.provider)
        violate('a completed payout not paid by exactly one rail (its own)', `${p.reference} (${p.provider}): ${JSON.stringify(held)}`);
      else paidBy[p.provider] = (paidBy[p.provider] ?? 0) + 1;
    }
    if (p.status === 'completed' && truth === 'reversed') violate('reversed by the rail but completed in the ledger', p.reference);
    else if (p.status === 'completed' && truth !== 'success')
      violate('completed without the rail paying', `${p.reference}: rail ${truth ?? 'has no transfer'}`);
    if (p.status === 'failed' && held.some((t) => t.status === 'success')) violate('failed (money refunded) though a rail paid', p.reference);
    if (p.status === 'reversed' && truth !== 'reversed') violate('reversed (money back) though the rail did not reverse it', p.reference);
    const credits = creditsOf.get(`reversal:${p.reference}`) ?? [];
    if (p.status === 'reversed' && (credits.length !== 1 || credits[0] !== p.amount.plus(p.fees).toFixed(6)))
      violate('a reversed payout whose money did not come back exactly once', `${p.reference}: ${credits.length} credit(s) ${credits.join(', ')}`);
    if (p.status !== 'reversed' && credits.length > 0) violate('a reversal credit for a payout that is not reversed', `${p.reference} (${p.status})`);
  }
  const known = new Set(payouts.map((p) => p.reference));
  for (const reference of atRails.keys()) if (!known.has(reference)) violate('a rail paid a transfer no payout has', reference);
  // A payout that moved to another rail has more than one attempt on record.
  const attemptCounts = await opts.db.payoutAttempt.groupBy({ by: ['transactionId'], _count: { rail: true } });
  const failedOver = attemptCounts.filter((a) => a._count.rail > 1).length;
  const sends = opts.rails.flatMap((r) => [...r.sends.values()]);

  // Every event reached each stable endpoint (they match every event and never
  // change), each churned endpoint's deliveries ran to the end, and the log
  // agrees with the receivers.
  const stable = new Set(opts.stableEndpointIds);
  const events = await opts.db.outboxEvent.findMany({ select: { id: true, workspaceId: true, event: true, relayedAt: true } });
  const endpoints = await opts.db.webhookEndpoint.findMany({ select: { id: true, workspaceId: true, events: true, active: true } });
  const deliveries = await opts.db.webhookDelivery.findMany({
    select: { id: true, deliveryId: true, dispatch: true, outboxEventId: true, endpointId: true, ok: true, completedAt: true, attempts: true },
  });
  // The first dispatch of each (event, endpoint); a resend or recover adds later ones.
  const byPair = new Map(deliveries.filter((d) => d.dispatch === 0).map((d) => [`${d.outboxEventId}:${d.endpointId}`, d]));
  for (const e of events) {
    if (!e.relayedAt) violate('event never relayed', `${e.event} #${e.id}`);
    for (const ep of endpoints.filter(
      (ep) => stable.has(ep.id) && ep.active && ep.workspaceId === e.workspaceId && (ep.events.includes('*') || ep.events.includes(e.event)),
    )) {
      const d = byPair.get(`${e.id}:${ep.id}`);
      if (!d) violate('event not dispatched to a matching endpoint', `${e.event} #${e.id} → endpoint ${ep.id}`);
      else if (!d.completedAt || d.attempts < 1) violate('delivery never attempted to the end', `${d.deliveryId}`);
    }
  }
  for (const d of deliveries) if (!d.completedAt) violate('delivery never finished', d.deliveryId);
  const deliveryIdOf = (q: HttpReceiver['requests'][number]) => String(q.headers['x-cowrie-delivery'] ?? '');
  const seen = new Set([...opts.receivers, opts.churnReceiver].flatMap((r) => r.requests.map(deliveryIdOf)));
  for (const d of deliveries) if (d.ok === 1 && !seen.has(d.deliveryId)) violate('delivery logged ok but no receiver saw it', d.deliveryId);
  // A deleted endpoint takes its log rows with it, so only the stable receivers are held to this.
  const logged = new Set(deliveries.map((d) => d.deliveryId));
  for (const id of new Set(opts.receivers.flatMap((r) => r.requests.map(deliveryIdOf))))
    if (id && !logged.has(id)) violate('a receiver got a delivery the log does not have', id);
  const rowIds = new Map(deliveries.map((d) => [String(d.id), d]));
  for (const p of opts.pings.filter((p) => p.stable && p.ok)) {
    const row = rowIds.get(String(p.deliveryId));
    if (!row || row.ok !== 1) violate('a test ping answered ok that the log does not show ok', `delivery ${p.deliveryId} → endpoint ${p.endpointId}`);
  }

  // Verifications: allowed states, attempts within the maximum, one code sent per start.
  const verifications = await opts.db.verification.findMany({
    select: { reference: true, destination: true, codeHash: true, codeSalt: true, status: true, attempts: true, maxAttempts: true },
  });
  const verificationCounts: Record<string, number> = {};
  for (const v of verifications) {
    verificationCounts[v.status] = (verificationCounts[v.status] ?? 0) + 1;
    if (!(VERIFICATION_STATUSES as readonly string[]).includes(v.status))
      violate('verification in a state the API does not have', `${v.reference}: ${v.status}`);
    if (v.attempts > v.maxAttempts) violate('verification attempts above the maximum', `${v.reference}: ${v.attempts} > ${v.maxAttempts}`);
    const sent = await opts.codesSent(v.reference);
    if (sent > 1) violate('a code delivered more than once for one start', `${v.reference}: ${sent}`);
  }

  // SMS: each message is the code of exactly one start (its hash matches one
  // row of that phone), and no start's code went out twice. A client that lost
  // its gateway mid-request starts again, so one phone may have several starts.
  const rowsOfPhone = new Map<string, typeof verifications>();
  for (const v of verifications)
    if (v.destination.startsWith('+')) rowsOfPhone.set(v.destination.slice(1), [...(rowsOfPhone.get(v.destination.slice(1)) ?? []), v]);
  const messagesPerStart = new Map<string, number>();
  for (const m of opts.smsDelivered) {
    const phone = String(m.body.to ?? m.body.phone_number);
    const code = /verification code is (\d+)\./.exec(String(m.body.sms ?? ''))?.[1] ?? String(m.body.code ?? '');
    const row = (rowsOfPhone.get(phone) ?? []).find((v) => codeMatches(code, v.codeSalt, v.codeHash));
    if (!row) violate('a code sent that no verification has', `sms to ${phone}`);
    else messagesPerStart.set(row.reference, (messagesPerStart.get(row.reference) ?? 0) + 1);
  }
  for (const [reference, n] of messagesPerStart) if (n > 1) violate('a code delivered more than once for one start', `sms for ${reference}: ${n} times`);

  // Money in: an acknowledged notification that should credit credited exactly
  // once, for its amount, to its business; one that should not, did not; none
  // credited twice, however often it was sent.
  const credits = await opts.db.ledgerTransaction.findMany({
    where: { category: 'collection' },
    select: { idempotencyKey: true, workspaceId: true, amount: true },
  });
  const creditsByKey = new Map<string, typeof credits>();
  for (const c of credits) creditsByKey.set(c.idempotencyKey, [...(creditsByKey.get(c.idempotencyKey) ?? []), c]);
  const byReference = new Map<string, InboundSent>();
  for (const sent of opts.inbound) {
    const prior = byReference.get(sent.reference);
    byReference.set(sent.reference, prior ? { ...prior, acknowledged: prior.acknowledged || sent.acknowledged } : sent);
  }
  for (const sent of byReference.values()) {
    const found = creditsByKey.get(`inbound:paystack:${sent.reference}`) ?? [];
    if (found.length > 1) violate('an inbound transfer credited more than once', `${sent.reference}: ${found.length}`);
    if (!sent.acknowledged) continue;
    if (sent.expect === 'credited') {
      const credit = found[0];
      if (!credit) violate('an acknowledged inbound transfer never credited', sent.reference);
      else if (credit.workspaceId !== sent.workspaceId || !new Decimal(credit.amount.toString()).equals(new Decimal(sent.amountKobo).div(100)))
        violate('an inbound transfer credited the wrong business or amount', `${sent.reference}: ${credit.workspaceId} ${credit.amount.toString()}`);
    } else if (found.length) violate('an inbound transfer that matches nothing was credited', sent.reference);
  }

  for (const d of opts.answers.disallowed) violate('an answer the API does not allow', `${d.op}: ${d.status} ${JSON.stringify(d.body).slice(0, 300)}`);

  return {
    violations,
    figures: {
      payouts: payoutCounts,
      railSends: sends.reduce((a, b) => a + b, 0),
      failedOver,
      paidBy,
      events: events.length,
      deliveries: deliveries.length,
      verifications: verificationCounts,
      inboundCredits: credits.length,
      inboundHeld: [...byReference.values()].filter((s) => s.acknowledged && s.expect === 'not credited').length,
      pings: opts.pings.length,
      smsSent: opts.smsDelivered.length,
    },
  };
}
