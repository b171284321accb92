import type { DbOrTx } from '@cowrie/db';
import { VERIFICATION_CHANNELS, type VerificationChannel } from './channels';

/** One channel's verifications started since a time, and how many of them were verified. */
export interface ChannelConversion {
  channel: VerificationChannel;
  started: number;
  verified: number;
  /** verified ÷ started, or null without starts. */
  conversion: number | null;
}

/**
 * Conversion (verified ÷ started) by channel of a workspace's verifications
 * started since `since` (the dashboard's last hour), every channel listed.
 * Read from Postgres: the rows are the record; the fraud guard's counters in
 * Redis are per prefix and for sms and voice only.
 */
export async function conversionByChannel(db: DbOrTx, workspaceId: number, since: Date): Promise<ChannelConversion[]> {
  const groups = await db.verification.groupBy({
    by: ['channel', 'status'],
    where: { workspaceId, createdAt: { gte: since } },
    _count: { _all: true },
  });
  return VERIFICATION_CHANNELS.map((channel) => {
    const of = groups.filter((g) => g.channel === channel);
    const started = of.reduce((n, g) => n + g._count._all, 0);
    const verified = of.filter((g) => g.status === 'verified').reduce((n, g) => n + g._count._all, 0);
    return { channel, started, verified, conversion: started > 0 ? Math.round((verified / started) * 1000) / 1000 : null };
  });
}
